"""The local redacting proxy (CPython shell over starlette, uvicorn and httpx): an OpenAI- and
Anthropic-compatible server that redacts every text a client sends before it goes upstream and
restores the answers, streamed or not. What to rewrite is decided in masking.py and the codecs."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import json
import logging
import os
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ..chat.codecs import PRESETS, anthropic, openai
from ..chat.codecs.errors import classify_http_error, looks_like_html, network_error, timeout_error
from ..chat.codecs.models import join_url
from ..chat.codecs.rewrite import dump
from ..chat.codecs.sse import SSEComment, SSEEvent, SSEItem, SSEParser, encode_comment, encode_event
from ..chat.codecs.walk import ShapeError
from ..patterns import compile_pending
from ..redact import RedactOptions, Restorer, Vault, pseudonymise
from ..redact.caches import load_data
from ..redact.pseudonymise import SpanSource
from . import masking
from .deploy_args import DEFAULT_SHUTDOWN_TIMEOUT, DEFAULT_UPSTREAM_TIMEOUT
from .documents import DocumentRefused, MediaRefused
from .metrics import Metrics
from .pool import REPLY_TIMEOUT, DetectionPool, Job, auto_workers
from .sessions import IDLE_SECONDS, SESSION_HEADER, Session, SessionError, SessionStore
from .vaultstore import MemoryVaultStore, RedisVaultStore, VaultKeys, VaultStore, VaultStoreError

log = logging.getLogger("openmasq.proxy")

# Bodies of at least 5 MB (long pasted documents, images) must go through; beyond this, 413.
MAX_BODY_BYTES = 6 * 1024 * 1024
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
                         "upgrade"})
# Going up: our session header stays here, httpx sets host and length itself, and without an
# accept-encoding the answer comes unencoded (it is rewritten here; a stream is not held back).
_NOT_UP = _HOP_BY_HOP | {"host", "content-length", "accept-encoding", SESSION_HEADER}
# Coming down: the body is re-encoded by us.
_NOT_DOWN = _HOP_BY_HOP | {"content-length", "content-encoding", "date", "server"}
REDACTIONS_HEADER = "x-openmasq-redactions"
WORKER_HEADER = "x-openmasq-worker"  # which worker answered (an index, for operations and tests)
# The upstream timeout (`--upstream-timeout`: seconds without a byte of the answer, long enough for a
# slow local model's first token) and the bound of a graceful shutdown (`--shutdown-timeout`).
UPSTREAM_TIMEOUT = DEFAULT_UPSTREAM_TIMEOUT
SHUTDOWN_TIMEOUT = DEFAULT_SHUTDOWN_TIMEOUT
# A request redacted against a vault another worker changed meanwhile is redacted again on the
# newer one; after this many clashes in a row it is refused.
VAULT_ATTEMPTS = 4
# A body this small is redacted on the event loop itself when no other redaction is running
# (a few ms, ~20 at most): the hop to a worker thread and back costs ~0.25 ms of every request
# (measured here) and buys nothing when there is no other request to serve meanwhile. Larger
# bodies, and any redaction that starts while another runs, go to a thread as before.
INLINE_MAX_BYTES = 8 * 1024


@dataclass(frozen=True)
class ProxyConfig:
    upstream: str  # the base URL an SDK would use (https://api.openai.com/v1), or a preset name
    options: RedactOptions = field(default_factory=RedactOptions)
    max_body: int = MAX_BODY_BYTES
    timeout: float = UPSTREAM_TIMEOUT  # between two bytes of the upstream's answer
    connect_timeout: float = 10.0
    shutdown_timeout: int = SHUTDOWN_TIMEOUT  # seconds (uvicorn counts whole ones)
    idle: float = IDLE_SECONDS
    detect_workers: int | None = None  # helper processes for detection (pool.py); None: auto_workers()
    # The NER model's spans (openmasq.ner.runtime); None: rules only (`openmasq proxy --rules-only`). The
    # command line loads the model by default and refuses to start without it.
    model: SpanSource | None = None
    model_name: str = "rules only"  # what /health and the start line say about it
    # Where named sessions' vaults live: None for this process's memory, else a redis:// URL whose
    # vaults are sealed with `vault_keys` (vaultstore.py).
    vault_store: str | None = None
    vault_keys: VaultKeys | None = None
    worker: int = 0  # this process's index among `openmasq proxy --workers N`
    # Images, audio and remote media URLs forwarded as they came (`--allow-media`, unvouched); else refused (415).
    allow_media: bool = False


def resolve_upstream(value: str) -> str:
    """A preset name (ollama, openai, …) or an http(s) base URL, without its trailing slash."""
    if value.lower() in PRESETS:
        return PRESETS[value.lower()].base_url
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"upstream must be an http(s) URL or one of: {', '.join(PRESETS)}")
    return value.rstrip("/")


class Proxy:
    def __init__(self, config: ProxyConfig, *, clock: Callable[[], float] = time.monotonic,
                 transport: httpx.AsyncBaseTransport | None = None, pool: DetectionPool | None = None) -> None:
        self.config = config
        self.upstream = resolve_upstream(config.upstream)
        self.sessions = SessionStore(idle=config.idle, clock=clock)
        self.pool = pool
        self._given_transport = transport
        self._transport: httpx.AsyncBaseTransport | None = None
        self._timeout = httpx.Timeout(config.timeout, connect=config.connect_timeout).as_dict()
        self._redacting = 0  # redactions running now, in threads or inline
        self.metrics = Metrics()
        self.store: VaultStore = MemoryVaultStore(self.sessions.held)

    def _open_store(self) -> None:
        if self.config.vault_store is None:
            return
        if self.config.vault_keys is None:
            raise ValueError("a Redis vault store needs the proxy's vault keys")
        self.store = RedisVaultStore(self.config.vault_store, self.config.vault_keys, idle=self.config.idle)

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        if self._given_transport is None:
            await warm_http_client()
        self._open_store()  # in the worker's own event loop (after the fork)
        if isinstance(self.store, RedisVaultStore) and not await self.store.ping():
            log.warning("the vault store (Redis) does not answer: requests with a session are refused until it does")
        try:
            async with self._given_transport or httpx.AsyncHTTPTransport() as transport:
                self._transport = transport
                yield
                self._transport = None
        finally:
            await self.store.close()

    async def _send(self, method: str, url: str, headers: Mapping[str, str], content: bytes | None = None,
                    ) -> httpx.Response:
        """One upstream call, its body not read yet. Straight through httpx's transport (its
        connection pool): the client layer above it would only add what a relay must not do
        (redirects, cookies, auth) and ~0.25 ms per request (measured here)."""
        if self._transport is None:
            raise RuntimeError("the proxy's HTTP transport is not started (run the app under its lifespan)")
        request = httpx.Request(method, url, headers=headers, content=content, extensions={"timeout": self._timeout})
        return await self._transport.handle_async_request(request)

    # --- routes -----------------------------------------------------------------------------

    async def chat_completions(self, request: Request) -> Response:
        return await self._relay_chat(request, "openai", openai.CHAT_PATH)

    async def messages(self, request: Request) -> Response:
        return await self._relay_chat(request, "anthropic", anthropic.MESSAGES_PATH)

    async def count_tokens(self, request: Request) -> Response:
        return await self._relay_chat(request, "anthropic", "messages/count_tokens")

    async def models(self, request: Request) -> Response:
        api = "anthropic" if "anthropic-version" in request.headers else "openai"
        url = self._url("models", request)
        try:
            upstream = await self._send("GET", url, _upstream_headers(request.headers))
            try:
                data = await upstream.aread()
            finally:
                await upstream.aclose()
        except httpx.TimeoutException:
            return _error(api, 504, "timeout", timeout_error(self.config.timeout).message)
        except httpx.TransportError as error:
            return _error(api, 502, "network", network_error(type(error).__name__).message)
        return self._answer_as_is(api, upstream.status_code, upstream.headers, data)

    async def health(self, request: Request) -> Response:
        workers = self.pool.workers if self.pool is not None else 0
        status: dict[str, object] = {"status": "ok", "sessions": len(self.sessions), "detect_workers": workers,
                                     "ner": self.config.model_name, "vault_store": self.store.name,
                                     "worker": self.config.worker, "pid": os.getpid()}
        if isinstance(self.store, RedisVaultStore) and not await self.store.ping():
            status["status"] = "vault store unavailable"
            return Response(dump(status), 503, media_type="application/json")
        return Response(dump(status), media_type="application/json")

    async def metrics_text(self, request: Request) -> Response:
        return Response(self.metrics.render(worker=self.config.worker), media_type="text/plain; version=0.0.4")

    async def not_supported(self, request: Request) -> Response:
        # Fail closed: an endpoint we do not know how to redact is never forwarded.
        return _error("openai", 404, "not_found",
                      f"The OpenMasq proxy does not forward {request.method} {request.url.path}: it only knows how "
                      "to redact /v1/chat/completions, /v1/messages and /v1/models.")

    # --- the chat relay -----------------------------------------------------------------------

    async def _relay_chat(self, request: Request, api: str, path: str) -> Response:
        started = time.perf_counter()
        response = await self._relay_chat_counted(request, api, path, started)
        self.metrics.request(api, response.status_code)
        if not isinstance(response, StreamingResponse):
            self.metrics.observe("total", time.perf_counter() - started)
        return response

    async def _relay_chat_counted(self, request: Request, api: str, path: str, started: float) -> Response:
        session_id = request.headers.get(SESSION_HEADER)
        try:
            session = self.sessions.get(session_id)
        except SessionError as error:
            return self._refuse(api, "session", 400, "invalid_request_error", str(error))
        raw = await _read_limited(request, self.config.max_body)
        if raw is None:
            return self._refuse(api, "too_large", 413, "request_too_large",
                                f"The request body is larger than the proxy's limit ({self.config.max_body} bytes).")
        try:
            body = json.loads(raw)
        except RecursionError:
            return self._refuse(api, "invalid_json", 400, "invalid_request_error",
                                "The request body nests JSON deeper than the proxy reads; nothing was sent upstream.")
        except ValueError:
            return self._refuse(api, "invalid_json", 400, "invalid_request_error",
                                "The request body is not JSON; nothing was sent upstream.")
        async with session.lock:
            try:
                masked = await self._redact_in_session(len(raw), api, body, session,
                                                       session_id if session.named else None)
            except VaultStoreError as error:
                log.warning("vault store: %s; nothing sent upstream", error.reason)
                status = 409 if error.reason == "clash" else 503
                return self._refuse(api, f"vault_{error.reason}", status, "vault_store_error", str(error))
            except MediaRefused as error:
                log.warning("refused a %s request with media (no --allow-media); nothing sent upstream", api)
                return self._refuse(api, "media", error.status, "invalid_request_error", str(error))
            except DocumentRefused as error:  # its message names the file and the reason, never its content
                log.warning("refused a %s request with a document that cannot be read (%s); nothing sent upstream",
                            api, error.reason)
                kind = "request_too_large" if error.status == 413 else "invalid_request_error"
                return self._refuse(api, f"document_{error.reason}", error.status, kind, str(error))
            except ShapeError as error:  # its message names fields and types, never values
                log.warning("refused a %s request of unknown shape; nothing sent upstream", api)
                return self._refuse(api, "shape", 400, "invalid_request_error",
                                    f"The proxy cannot account for every text of this request ({error}); "
                                    "nothing was sent upstream.")
            except Exception as error:  # fail closed, and say nothing of the text
                log.warning("redaction failed (%s); nothing sent upstream", type(error).__name__)
                return self._refuse(api, "redaction", 422, "redaction_error",
                                    "Redaction failed, so nothing was sent upstream. Rephrase the message or use "
                                    "another protection level.")
            session.vault = masked.vault
            restorers = session.restorers_for(masked.vault)
        self.metrics.replaced(api, masked.replaced)
        log.info("%s /v1/%s: %d value(s) replaced in %.1f ms", request.method, path, masked.replaced,
                 (time.perf_counter() - started) * 1000)
        warm = _warm(restorers, args=masking.may_call_tools(body), pool=self.pool)
        content = dump(masked.body).encode("utf-8")
        stream = isinstance(body, dict) and body.get("stream") is True
        try:
            upstream = await self._send("POST", self._url(path, request), _upstream_headers(request.headers), content)
        except httpx.TimeoutException:
            return _error(api, 504, "timeout", timeout_error(self.config.timeout).message)
        except httpx.TransportError as error:
            return _error(api, 502, "network", network_error(type(error).__name__).message)
        extra = {REDACTIONS_HEADER: str(masked.replaced), WORKER_HEADER: str(self.config.worker)}
        if stream and _is_event_stream(upstream):
            headers = {**_downstream_headers(upstream.headers), **extra, "cache-control": "no-cache"}
            return StreamingResponse(self._restore_stream(api, upstream, restorers, warm), upstream.status_code,
                                     headers=headers, media_type="text/event-stream")
        try:
            data = await upstream.aread()
        except httpx.TimeoutException:
            return _error(api, 504, "timeout", timeout_error(self.config.timeout).message)
        except httpx.HTTPError as error:
            return _error(api, 502, "network", network_error(type(error).__name__).message)
        finally:
            await upstream.aclose()
        if not 200 <= upstream.status_code < 300 or _is_html(upstream.headers, data):
            return self._answer_as_is(api, upstream.status_code, upstream.headers, data)
        await warm
        return self._restore_complete(api, upstream.status_code, upstream.headers, data, restorers, extra)

    def _refuse(self, api: str, reason: str, status: int, kind: str, message: str) -> Response:
        self.metrics.refused(reason)
        return _error(api, status, kind, message)

    async def _redact_in_session(self, size: int, api: str, body: object, session: Session,
                                 session_id: str | None) -> masking.Masked:
        """The body redacted against the session's stored vault, and the vault it leaves stored;
        redacted again on the newer vault when another worker stored one meanwhile (both requests'
        values end up in it, each with one fake). A one-request session (no header) stores nothing."""
        if session_id is None:
            return await self._redact(size, api, body, session, session.vault)
        for _ in range(VAULT_ATTEMPTS):
            loaded_at = time.perf_counter()
            loaded = await self.store.load(session_id)
            self.metrics.observe("vault", time.perf_counter() - loaded_at)
            base = loaded.vault if loaded.vault is not None else Vault.new()
            masked = await self._redact(size, api, body, session, base)
            if loaded.version and not _grew(base, masked.vault):
                return masked
            saved_at = time.perf_counter()
            saved = await self.store.save(session_id, masked.vault, loaded.version)
            self.metrics.observe("vault", time.perf_counter() - saved_at)
            if saved:
                return masked
        raise VaultStoreError("clash", "The conversation's vault kept changing under this request (other requests "
                              "of the same session at once); nothing was sent upstream. Retry it.")

    async def _redact(self, size: int, api: str, body: object, session: Session, vault: Vault) -> masking.Masked:
        inline = _redacts_inline(size, others=self._redacting)
        self._redacting += 1
        started = time.perf_counter()
        try:
            media = self.config.allow_media
            if inline:
                return masking.redact_body(api, body, vault, self.config.options, session.spans, self.pool,
                                           self.config.model, allow_media=media)
            return await run_in_threadpool(masking.redact_body, api, body, vault, self.config.options,
                                           session.spans, self.pool, self.config.model, allow_media=media)
        finally:
            self._redacting -= 1
            self.metrics.observe("redaction", time.perf_counter() - started)

    def _restore_complete(self, api: str, status: int, headers: httpx.Headers, data: bytes,
                          restorers: masking.Restorers, extra: Mapping[str, str]) -> Response:
        text = data.decode("utf-8", "replace")
        try:
            doc = json.loads(text)
        except ValueError:
            return _error(api, 502, "malformed", "The upstream's answer is not JSON.")
        try:
            restored = dump(masking.restore_body(api, doc, restorers))
        except ShapeError:  # a shape the codec does not know (count_tokens, an extension)
            restored = masking.restore_raw(text, restorers)
        return Response(restored.encode("utf-8"), status, headers={**_downstream_headers(headers), **extra},
                        media_type="application/json")

    def _answer_as_is(self, api: str, status: int, headers: httpx.Headers, data: bytes) -> Response:
        """An upstream error goes back with its status and body; a web page instead of the API
        becomes a clear error in the client's format."""
        if _is_html(headers, data):
            error = classify_http_error(status, headers, data)
            log.warning("upstream answered HTML (HTTP %d)", status)
            return _error(api, status if status >= 400 else 502, "html", error.message)
        return Response(data, status, headers=_downstream_headers(headers))

    async def _restore_stream(self, api: str, upstream: httpx.Response, restorers: masking.Restorers,
                              warm: asyncio.Future[masking.Restorers]) -> AsyncIterator[bytes]:
        parser = SSEParser(comments=True)
        rewriter = masking.stream_rewriter(api, restorers)
        cut = ""
        try:
            async for chunk in upstream.aiter_bytes():
                if not warm.done():
                    await warm
                out = _encode(item for raw in parser.feed(chunk) for item in rewriter.rewrite(raw))
                if out:
                    yield out
        except httpx.TimeoutException:
            cut = "timeout"
        except httpx.TransportError:
            cut = "network"
        finally:
            await upstream.aclose()
        tail = [item for raw in parser.close() for item in rewriter.rewrite(raw)]
        tail += rewriter.finish()
        if not rewriter.complete:
            tail.append(_stream_error(api, cut))
        if rewriter.problems:
            log.warning("upstream stream: %s", ", ".join(sorted({p.split(":")[0] for p in rewriter.problems})))
        out = _encode(tail)
        if out:
            yield out

    def _url(self, path: str, request: Request) -> str:
        query = request.url.query
        return join_url(self.upstream, path) + (f"?{query}" if query else "")


def create_app(config: ProxyConfig, *, clock: Callable[[], float] = time.monotonic,
               transport: httpx.AsyncBaseTransport | None = None, pool: DetectionPool | None = None) -> Starlette:
    _remember_missing_sniffio()
    proxy = Proxy(config, clock=clock, transport=transport, pool=pool)
    routes = [
        Route("/v1/chat/completions", proxy.chat_completions, methods=["POST"]),
        Route("/v1/messages", proxy.messages, methods=["POST"]),
        Route("/v1/messages/count_tokens", proxy.count_tokens, methods=["POST"]),
        Route("/v1/models", proxy.models, methods=["GET"]),
        Route("/health", proxy.health, methods=["GET"]),
        Route("/metrics", proxy.metrics_text, methods=["GET"]),
        Route("/{path:path}", proxy.not_supported, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
    ]
    app = Starlette(routes=routes, lifespan=proxy.lifespan, exception_handlers={Exception: _unexpected})
    app.state.proxy = proxy
    return app


def serve(config: ProxyConfig, *, host: str = "127.0.0.1", port: int = 8787, log_level: str = "info",
          workers: int = 1) -> None:
    """Run the proxy until SIGTERM or Ctrl-C: in this process, or in `workers` forked processes
    sharing one socket (their vaults then must live in a shared store: vault_store)."""
    import uvicorn  # a CPython-only dependency, imported when serving

    if workers > 1 and config.vault_store is None:
        raise ValueError("several workers need a shared vault store (--vault-store redis://...): with vaults in "
                         "each worker's memory a conversation would get other fakes on another worker")
    upstream = resolve_upstream(config.upstream)
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    warm_engine(config.options, config.model)
    # Forked once the engine is loaded (shared copy-on-write) and before the server's threads. With
    # several workers, none by default: the workers already take the cores.
    default_helpers = auto_workers() if workers == 1 else 0
    helpers = default_helpers if config.detect_workers is None else config.detect_workers
    log.info("OpenMasq proxy on http://%s:%d/v1 -> %s (level %s, mode %s, NER: %s, %d worker(s), %d detection "
             "helper(s) each, vaults in %s)", host, port, upstream, config.options.level, config.options.mode,
             config.model_name, workers, helpers, "Redis" if config.vault_store else "memory")

    def run_one(index: int, sock: socket.socket | None) -> None:
        pool = DetectionPool(helpers) if helpers > 0 else None
        worker_config = replace(config, worker=index)
        app = create_app(worker_config, pool=pool)
        try:
            server = uvicorn.Server(server_config(app, worker_config, host=host, port=port, log_level=log_level))
            server.run(sockets=[sock] if sock is not None else None)
        finally:
            if pool is not None:
                pool.close()

    if workers <= 1:
        run_one(0, None)
        return
    from .workers import Supervisor, listening_socket

    sock = listening_socket(host, port)
    try:
        Supervisor(workers, run_one, sock, config.shutdown_timeout).run()
    finally:
        sock.close()


def server_config(app: Starlette, config: ProxyConfig, *, host: str, port: int, log_level: str) -> Any:
    """uvicorn's settings for the proxy: no access log (each relayed request already logs one line of
    counts and timings, no values), and a bounded graceful shutdown: on SIGTERM requests in flight get
    `shutdown_timeout` seconds, then they are cancelled and the process exits."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False,
                          timeout_graceful_shutdown=max(1, config.shutdown_timeout))


# A sample with every kind of value the lexicons and rules load data for (made-up values).
_WARM_TEXT = ("Bonjour Maître Dupont, Marie Lefèvre (marie.lefevre@karl-studio.fr, +33 6 12 34 56 78) de Karl "
              "Studio SAS, 12 rue des Lilas 75011 Paris, IBAN FR76 3000 6000 0112 3456 7890 189, né le 3 mars 1984. "
              "Thanks, John Smith from Brightwave Ltd, Müller GmbH, api key sk-proj-abc123def456ghi789jkl012.")


def warm_engine(options: RedactOptions, model: SpanSource | None = None) -> None:
    """Load the engine before the first request (lexicons, name pools and towns of every
    language, every pattern: about half a second and 8 MB, else paid by the first clients: a
    language's name pools alone cost ~0.1 s), then move everything loaded so far out of the
    garbage collector's sight: the lexicons hold hundreds of thousands of strings in sets
    that a full collection would walk again each time (measured here: about 20 ms of CPU per
    full collection before gc.freeze(), under 0.01 ms after)."""
    load_data()
    result = pseudonymise(_WARM_TEXT, Vault.new(), options, model=model)
    Restorer(result.vault).restore(result.text)
    compile_pending()
    gc.collect()
    gc.freeze()


async def warm_http_client() -> None:
    """One request through a transport like the proxy's to a throwaway server of our own on
    loopback, so that the first relayed request does not pay the HTTP client's first use (its
    async backend and stream modules are imported then: ~30 ms, measured here). Nothing reaches
    the upstream; best effort: a failure only leaves that cost to the first request."""
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with suppress(OSError, asyncio.IncompleteReadError):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}")
            await writer.drain()
        writer.close()

    try:
        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        async with server:
            port = server.sockets[0].getsockname()[1]
            async with httpx.AsyncHTTPTransport() as transport:
                request = httpx.Request("GET", f"http://127.0.0.1:{port}/", extensions={"timeout": {"pool": 5.0,
                                        "connect": 5.0, "read": 5.0, "write": 5.0}})
                response = await transport.handle_async_request(request)
                await response.aread()
                await response.aclose()
    except (OSError, httpx.HTTPError) as error:
        log.debug("the HTTP client was not warmed (%s)", type(error).__name__)


# --- helpers ----------------------------------------------------------------------------------


def _redacts_inline(size: int, *, others: int) -> bool:
    """Whether a body of `size` bytes is redacted on the event loop (see INLINE_MAX_BYTES)."""
    return size <= INLINE_MAX_BYTES and others == 0


def _remember_missing_sniffio() -> None:
    """httpcore asks `import sniffio` which async library runs, on every connection-pool lock
    (four times per relayed request), and falls back to asyncio when it is not installed. A
    failed import is not cached: each one searched sys.path again (~12 stat calls; measured
    here: ~0.4 ms of every request). Recording the absence makes the fallback immediate."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]  # the import system's "known missing"


def _warm(restorers: masking.Restorers, *, args: bool, pool: DetectionPool | None,
          ) -> asyncio.Future[masking.Restorers]:
    """The restorers built while the upstream works on the answer: by a helper process when one
    is idle (a thread here would hold the interpreter lock while the server reads the answer:
    ~0.5 ms of every relayed request, measured), else in a worker thread; at once when the
    session's vault did not change since they were built, or when it is empty (nothing to build)."""
    if restorers.ready(args=args) or not restorers.vault.entries:
        done: asyncio.Future[masking.Restorers] = asyncio.get_running_loop().create_future()
        done.set_result(restorers.build(args=args))
        return done
    job = pool.restorers(*restorers.substitutes(), args=args) if pool is not None else None
    if job is None:
        return asyncio.ensure_future(run_in_threadpool(restorers.build, args=args))
    return asyncio.ensure_future(_built_by_helper(job, restorers, args=args))


async def _built_by_helper(job: Job, restorers: masking.Restorers, *, args: bool) -> masking.Restorers:
    """The helper's restorers, its pipe watched by the event loop (no thread waits on it); a
    helper that fails or does not answer is retired and the restorers are built here instead."""
    loop = asyncio.get_running_loop()
    answered: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not answered.done():
            answered.set_result(None)

    fd = job.fileno()
    loop.add_reader(fd, readable)
    try:
        with suppress(TimeoutError):
            await asyncio.wait_for(answered, REPLY_TIMEOUT)
    finally:  # even when cancelled, the reply is read (or the helper retired): never left behind
        loop.remove_reader(fd)
        # uvloop makes a watched descriptor non-blocking and leaves it so: the pipe's next large
        # message (a body of a few hundred kB) would then fail half-written and retire the helper.
        os.set_blocking(fd, True)
        built = job(timeout=0)
    if built is None:
        return await run_in_threadpool(restorers.build, args=args)
    return restorers.adopt(built)


async def _read_limited(request: Request, limit: int) -> bytes | None:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _upstream_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The client's headers as they are (its API key included), less hop-by-hop ones."""
    return {k: v for k, v in headers.items() if k.lower() not in _NOT_UP}


def _downstream_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _NOT_DOWN}


def _is_event_stream(response: httpx.Response) -> bool:
    kind = response.headers.get("content-type", "").lower()
    return 200 <= response.status_code < 300 and "json" not in kind and "text/html" not in kind


def _is_html(headers: httpx.Headers, data: bytes) -> bool:
    return looks_like_html({k.lower(): v for k, v in headers.items()}, data[:1024].decode("utf-8", "replace"))


def _grew(before: Vault, after: Vault) -> bool:
    """Whether a pass added anything to the vault (a pass only ever adds)."""
    return (after.mode != before.mode or len(after.entries) != len(before.entries)
            or len(after.words) != len(before.words) or len(after.org_cores) != len(before.org_cores)
            or after.counters != before.counters)


async def _unexpected(request: Request, error: Exception) -> Response:
    """Whatever escaped a route answers in the client's error format, naming no value."""
    log.error("unexpected %s on %s", type(error).__name__, request.url.path)
    api = "anthropic" if request.url.path.startswith("/v1/messages") else "openai"
    return _error(api, 500, "proxy_error", "The proxy failed on this request; nothing more was sent upstream.")


def _error(api: str, status: int, kind: str, message: str) -> Response:
    return Response(dump(masking.error_body(api, kind, message)).encode("utf-8"), status,
                    media_type="application/json")


def _stream_error(api: str, cut: str) -> SSEEvent:
    if cut == "timeout":
        kind, message = "timeout", timeout_error().message
    elif cut == "network":
        kind, message = "network", "The connection to the provider broke during the answer; it is incomplete."
    else:
        kind, message = "truncated", "The provider's stream ended before the answer was complete."
    return openai.error_event(kind, message) if api == "openai" else anthropic.error_event(kind, message)


def _encode(items: Iterable[SSEItem]) -> bytes:
    parts: list[str] = []
    for item in items:
        if isinstance(item, SSEEvent):
            parts.append(encode_event(item))
        elif isinstance(item, SSEComment):
            parts.append(encode_comment(item.text))
    return "".join(parts).encode("utf-8")
