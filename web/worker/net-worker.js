// net-worker: the ONLY code of the app that talks to a provider (docs/web.md, "Security and egress").
// Its script response carries connect-src 'self' + the configured provider origins; every other
// script of the app is limited to 'self'. It receives already-redacted request specs on a
// MessagePort and streams the answer's bytes back:
//   in : {id, url, method, headers, body, timeout_ms}      {id, type: "abort"}
//   out: {id, type: "head", status, headers}  {id, type: "chunk", bytes}  {id, type: "end"}
//        {id, type: "error", kind: "network" | "timeout" | "blocked", message}
// `timeout_ms` is an idle timeout: the request fails when no byte came for that long.
// It logs nothing (a request's body, URL or key must never reach a console or a log).

const DEFAULT_TIMEOUT_MS = 120_000;
const running = new Map(); // `${portIndex}:${id}` -> {controller, timedOut}
const violations = []; // recent CSP refusals seen in this worker: {uri, at}
const VIOLATIONS_KEPT = 32;
let ports = 0;

// A fetch the policy refuses fails like a network error; the refusal itself is reported through
// this event, which is how "blocked" is told apart from "network".
self.addEventListener("securitypolicyviolation", (/** @type {SecurityPolicyViolationEvent} */ event) => {
  violations.push({ uri: String(event.blockedURI || ""), at: performance.now() });
  if (violations.length > VIOLATIONS_KEPT) violations.shift();
});

function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

function blockedByPolicy(url, since) {
  const origin = originOf(url);
  return violations.some((v) => v.at >= since && (v.uri === url || originOf(v.uri) === origin || v.uri === origin));
}

// The violation event is queued as a task of its own: let it run before deciding.
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

function serve(port) {
  const index = ports++;
  port.onmessage = ({ data }) => {
    if (!data || data.id === undefined) return;
    const key = `${index}:${data.id}`;
    if (data.type === "abort") {
      const job = running.get(key);
      if (job) {
        job.aborted = true;
        job.controller.abort();
        running.delete(key);
      }
      return;
    }
    run(port, key, data);
  };
}

async function run(port, key, spec) {
  const { id } = spec;
  const controller = new AbortController();
  const job = { controller, timedOut: false, aborted: false, timer: 0 };
  running.set(key, job);
  const timeoutMs = Number(spec.timeout_ms) > 0 ? Number(spec.timeout_ms) : DEFAULT_TIMEOUT_MS;
  const arm = () => {
    clearTimeout(job.timer);
    job.timer = setTimeout(() => {
      job.timedOut = true;
      controller.abort();
    }, timeoutMs);
  };
  const post = (message, transfer = []) => {
    if (!job.aborted) port.postMessage({ id, ...message }, transfer);
  };
  const started = performance.now();
  arm();
  try {
    const response = await fetch(spec.url, {
      method: spec.method || "GET",
      headers: spec.headers || {},
      body: spec.body ?? undefined,
      signal: controller.signal,
      // Provider requests carry no cookies and no referrer; the API key travels in its header only.
      credentials: "omit",
      referrerPolicy: "no-referrer",
      cache: "no-store",
      redirect: "follow",
    });
    post({ type: "head", status: response.status, headers: Object.fromEntries(response.headers.entries()) });
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        arm();
        const { done, value } = await reader.read();
        if (done) break;
        post({ type: "chunk", bytes: value }, [value.buffer]);
      }
    }
    post({ type: "end" });
  } catch (error) {
    if (job.aborted) return;
    if (job.timedOut) {
      post({ type: "error", kind: "timeout", message: `no answer for ${Math.round(timeoutMs / 1000)} s` });
    } else {
      await nextTask();
      const blocked = blockedByPolicy(spec.url, started);
      post({
        type: "error",
        kind: blocked ? "blocked" : "network",
        message: blocked ? "refused by the app's connection policy" : String(error && error.message || error),
      });
    }
  } finally {
    clearTimeout(job.timer);
    running.delete(key);
  }
}

// The page hands over one end of a MessageChannel (app/workers.js): {type: "port", port}, transferred.
self.onmessage = ({ data, ports: transferred }) => {
  const port = (data && data.port) || (transferred && transferred[0]);
  if (data && data.type === "port" && port) serve(port);
};
