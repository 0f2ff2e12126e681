"""The proxy's operations counters (pure): requests by API and status, values replaced, refusals
by reason, latency histograms; rendered in Prometheus' text format at GET /metrics. Only counts
and durations go in: no label or sample ever holds a text, a session id or a value."""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field

# Seconds; the last bucket is +Inf.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# The only label values a counter accepts: anything else is counted as "other".
APIS = ("openai", "anthropic")
REFUSALS = ("invalid_json", "too_large", "shape", "redaction", "session", "vault_unavailable",
            "vault_undecryptable", "vault_clash", "shutting_down", "media", "document_unsupported",
            "document_binary", "document_undecodable", "document_encrypted", "document_corrupt",
            "document_no_text_layer", "document_too_large", "document_zip_bomb", "document_empty")
STAGES = ("redaction", "vault", "total")


@dataclass
class Histogram:
    counts: list[int] = field(default_factory=lambda: [0] * (len(LATENCY_BUCKETS) + 1))
    total: float = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.total += seconds

    @property
    def count(self) -> int:
        return sum(self.counts)


@dataclass
class Metrics:
    requests: Counter[tuple[str, int]] = field(default_factory=Counter)  # (api, status)
    redactions: Counter[str] = field(default_factory=Counter)  # api -> values replaced
    refusals: Counter[str] = field(default_factory=Counter)  # reason
    latency: dict[str, Histogram] = field(default_factory=lambda: {stage: Histogram() for stage in STAGES})

    def request(self, api: str, status: int) -> None:
        self.requests[(_known(api, APIS), int(status))] += 1

    def replaced(self, api: str, count: int) -> None:
        self.redactions[_known(api, APIS)] += int(count)

    def refused(self, reason: str) -> None:
        self.refusals[_known(reason, REFUSALS)] += 1

    def observe(self, stage: str, seconds: float) -> None:
        if stage in self.latency:
            self.latency[stage].observe(seconds)

    def render(self, *, worker: int) -> str:
        """Prometheus text exposition (one worker's counters: each worker counts its own)."""
        w = f'worker="{int(worker)}"'
        lines = ["# TYPE openmasq_requests_total counter"]
        lines += [f'openmasq_requests_total{{{w},api="{api}",status="{status}"}} {n}'
                  for (api, status), n in sorted(self.requests.items())]
        lines.append("# TYPE openmasq_values_replaced_total counter")
        lines += [f'openmasq_values_replaced_total{{{w},api="{api}"}} {n}'
                  for api, n in sorted(self.redactions.items())]
        lines.append("# TYPE openmasq_refusals_total counter")
        lines += [f'openmasq_refusals_total{{{w},reason="{reason}"}} {n}'
                  for reason, n in sorted(self.refusals.items())]
        for stage, histogram in self.latency.items():
            name = f"openmasq_{stage}_seconds"
            lines.append(f"# TYPE {name} histogram")
            running = 0
            for bound, count in zip((*LATENCY_BUCKETS, float("inf")), histogram.counts, strict=True):
                running += count
                le = "+Inf" if bound == float("inf") else f"{bound:g}"
                lines.append(f'{name}_bucket{{{w},le="{le}"}} {running}')
            lines.append(f"{name}_sum{{{w}}} {histogram.total:.6f}")
            lines.append(f"{name}_count{{{w}}} {histogram.count}")
        return "\n".join(lines) + "\n"


def _known(value: str, allowed: tuple[str, ...]) -> str:
    return value if value in allowed else "other"
