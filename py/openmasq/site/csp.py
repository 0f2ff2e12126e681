"""The Content-Security-Policies of the built site, defined once: the local server sends them as
headers, the build writes them into the page's <meta> and into the service worker, which sets them
on every response it serves (docs/web.md, "Security and egress")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

# The page and every worker: nothing but the site itself; wasm may compile (Pyodide, ORT, wllama).
BASE_DIRECTIVES: tuple[tuple[str, str], ...] = (
    ("default-src", "'self'"),
    ("script-src", "'self' 'wasm-unsafe-eval'"),
    ("style-src", "'self'"),
    ("img-src", "'self' data: blob:"),
    ("connect-src", "'self'"),
    ("worker-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'none'"),
    ("form-action", "'none'"),
)
# Only meaningful as a header: a <meta> policy ignores it (and Chrome warns about it).
HEADER_ONLY_DIRECTIVES: tuple[tuple[str, str], ...] = (("frame-ancestors", "'none'"),)

# Chrome gives a dedicated worker the policy of its own script response, not the page's: these
# paths (relative to the site root) get a policy of their own.
NET_WORKER = "worker/net-worker.js"  # the one egress point: connect-src widened to the provider origins
LLM_WORKER = "worker/llm-worker.js"  # wllama runs llama.cpp in a nested worker it creates from a blob: URL
SYNC_WORKER = "worker/sync-worker.js"  # sync's replication (docs/sync.md): the sync server's origin, set by the page
EGRESS_SCRIPTS: tuple[str, ...] = (NET_WORKER, SYNC_WORKER)
# A test-only module worker in `--with-tests` builds, treated as an egress point so the e2e tests can
# prove the widening without depending on the real net-worker's protocol.
TEST_EGRESS_PROBE = "tests/egress-probe.js"

# Cross-origin isolation (crossOriginIsolated in the page and its workers): SharedArrayBuffer, so wllama
# and onnxruntime-web can run wasm threads. Every file of the site is same-origin, so require-corp
# costs nothing there; the providers net-worker reaches are CORS requests, which COEP does not
# block. Measured with SmolLM2-135M on the 2-core dev machine: docs/web.md, "Cross-origin isolation".
ISOLATION_HEADERS: dict[str, str] = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}
# Headers every response of the site carries, besides its Content-Security-Policy.
SECURITY_HEADERS: dict[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    **ISOLATION_HEADERS,
}

# Far more than anyone configures; bounds the header a page message can make the service worker write.
MAX_EGRESS_ORIGINS = 64
HOST_NAME = re.compile(r"[a-z0-9.-]+")
IPV6_HOST = re.compile(r"[0-9a-f:.]+")


def _render(directives: Iterable[tuple[str, str]]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives)


def _with(directives: Iterable[tuple[str, str]], name: str, value: str) -> list[tuple[str, str]]:
    return [(n, value if n == name else v) for n, v in directives]


def meta_policy() -> str:
    """The policy the page carries in its <meta> tag (static hosts may send no header)."""
    return _render(BASE_DIRECTIVES)


def page_policy() -> str:
    """The header policy of the page and of every script without a policy of its own."""
    return _render((*BASE_DIRECTIVES, *HEADER_ONLY_DIRECTIVES))


def llm_worker_policy() -> str:
    return _render(_with((*BASE_DIRECTIVES, *HEADER_ONLY_DIRECTIVES), "worker-src", "'self' blob:"))


def egress_policy(origins: Iterable[str] = ()) -> str:
    """The net-worker's policy: connect-src 'self' plus the provider origins (validated, sorted)."""
    allowed = " ".join(["'self'", *normalise_origins(origins)])
    return _render(_with((*BASE_DIRECTIVES, *HEADER_ONLY_DIRECTIVES), "connect-src", allowed))


def policy_for(path: str, *, egress_scripts: Iterable[str] = EGRESS_SCRIPTS) -> str:
    """The header policy for a site-relative path as our local server sends it: egress scripts get
    connect-src 'self' only, since widening it is the service worker's job (it knows the origins)."""
    path = path.lstrip("/")
    if path in set(egress_scripts):
        return egress_policy(())
    if path == LLM_WORKER:
        return llm_worker_policy()
    return page_policy()


def origin_of(value: str) -> str | None:
    """`value` if it is exactly an http(s) origin (scheme://host[:port], lower case, no default port,
    optionally with one trailing slash), normalised without the slash; None for anything else.

    Refuses paths, credentials, queries, fragments, wildcards, non-ASCII hosts and anything else that
    could smuggle a directive into the header. web/sw.js applies the same rule (originOf).
    """
    if not isinstance(value, str) or any(c.isspace() or c in ";,'\"*\\" for c in value):
        return None
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname or ""
    host_ok = bool(HOST_NAME.fullmatch(host)) or bool(IPV6_HOST.fullmatch(host))
    if parts.scheme not in ("http", "https") or not host_ok or parts.username is not None:
        return None
    bracketed = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}[parts.scheme]
    origin = f"{parts.scheme}://{bracketed}{'' if port in (None, default) else f':{port}'}"
    return origin if value in (origin, f"{origin}/") else None


def normalise_origins(origins: Iterable[str]) -> list[str]:
    """Valid origins only, deduplicated and sorted; raises ValueError on an invalid one or too many."""
    found: set[str] = set()
    for value in origins:
        origin = origin_of(value)
        if origin is None:
            raise ValueError(f"not an http(s) origin: {value!r}")
        found.add(origin)
    if len(found) > MAX_EGRESS_ORIGINS:
        raise ValueError(f"more than {MAX_EGRESS_ORIGINS} egress origins")
    return sorted(found)
