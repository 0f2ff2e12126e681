"""Drives worker/ml-worker.js of a built site from a Playwright page (the parity tests and bench/models.py):
the page spawns the worker, speaks its port protocol, and hands back JSON (vectors as lists of floats)."""

from __future__ import annotations

from typing import Any

# The page a test build always holds (e2e/fixtures/site-tests): a bare page under the site's own policy.
PROBE_PAGE = "tests/no-manifest.html"

_INSTALL = """
() => {
  if (window.__ml) return true;
  const worker = new Worker(new URL("../worker/ml-worker.js", location.href), { type: "module" });
  const channel = new MessageChannel();
  worker.postMessage({ type: "port", port: channel.port2 }, [channel.port2]);
  const pending = new Map();
  let nextId = 1;
  channel.port1.onmessage = ({ data }) => {
    const entry = pending.get(data.id);
    if (!entry) return;
    if (data.type === "progress") { entry.progress.push(data); return; }
    pending.delete(data.id);
    entry.resolve({ ...data, progress: entry.progress });
  };
  window.__ml = {
    call(message) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, { resolve, progress: [] });
        channel.port1.postMessage({ id, ...message });
      });
    },
  };
  return true;
}
"""

_CALL = """
async (message) => {
  const started = performance.now();
  const answer = await window.__ml.call(message);
  answer.ms = performance.now() - started;
  if (answer.vectors) {
    const rows = [];
    const dim = answer.dim;
    for (let i = 0; i < answer.count; i++) rows.push(Array.from(answer.vectors.subarray(i * dim, (i + 1) * dim)));
    answer.vectors = rows;
  }
  if (answer.scores) answer.scores = Array.from(answer.scores);
  return answer;
}
"""

# Timing of `embed` calls repeated in the page, so the figure holds no Playwright round trip.
_TIME_EMBED = """
async ([texts, batch, rounds]) => {
  const times = [];
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < texts.length; i += batch) {
      const started = performance.now();
      const answer = await window.__ml.call({ type: "embed", texts: texts.slice(i, i + batch), kind: "passage" });
      if (answer.type !== "embed") throw new Error(answer.message);
      times.push([performance.now() - started, Math.min(batch, texts.length - i)]);
    }
  }
  return times;
}
"""


class MlWorker:
    """One ml-worker in a page of the built site."""

    def __init__(self, page: Any) -> None:
        self.page = page
        page.evaluate(_INSTALL)

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self.page.evaluate(_CALL, message)
        return answer

    def ok(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = self.call(message)
        if answer.get("type") == "error":
            raise RuntimeError(f"ml-worker {message.get('type')}: {answer.get('kind')}: {answer.get('message')}")
        return answer

    def load(self, model: str) -> dict[str, Any]:
        return self.ok({"type": "load", "model": model})

    def embed(self, texts: list[str], kind: str = "passage") -> list[list[float]]:
        vectors: list[list[float]] = self.ok({"type": "embed", "texts": texts, "kind": kind})["vectors"]
        return vectors

    def tag(self, feats: Any) -> list[float]:
        """The NER network's scores in the worker for arrays of openmasq.ner.features.featurise."""
        answer = self.ok({"type": "tag", "ids": list(feats.ids), "flags": list(feats.flags),
                          "windows": feats.windows, "length": feats.length})
        scores: list[float] = answer["scores"]
        return scores

    def time_embed(self, texts: list[str], batch: int, rounds: int = 1) -> list[tuple[float, int]]:
        """(milliseconds, texts) of each embed call, timed inside the page."""
        return [(float(ms), int(n)) for ms, n in self.page.evaluate(_TIME_EMBED, [texts, batch, rounds])]


def open_ml_worker(context: Any, base_url: str) -> MlWorker:
    page = context.new_page()
    page.goto(base_url + PROBE_PAGE)
    return MlWorker(page)
