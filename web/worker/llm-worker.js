// The bundled offline model: wllama (llama.cpp in wasm) running SmolLM2-135M-Instruct, answering OpenAI-style
// chat requests on the same port protocol as net-worker (docs/web.md, "The worker protocol"), so the py-worker
// drives the local model and remote providers through one code path. The model loads on the first request.
//
// In:  {id, url, method, headers, body}  (body: OpenAI Chat Completions JSON, as text, bytes or an object)
//      {id, type: "abort"}, {id, type: "load"} (load the model now, e.g. when the local provider is chosen),
//      {id, type: "info"} (-> {id, type: "info", loaded, load_ms, multithread, threads, compat, chat_template})
// Out: {id, type: "progress", stage: "download"|"load"|"ready", loaded, total}
//      {id, type: "head", status, headers}, {id, type: "chunk", bytes}, {id, type: "end"}
//      {id, type: "error", kind: "model_load"|"inference"|"aborted", message}
// Requests arrive on a MessagePort sent as {type: "port", port}, or directly on the worker (tests).

import { needsWasmCompat } from "./wasm-features.js";

const MODEL_ID = "smollm2-135m-instruct";
// All URLs are relative to this script (worker/llm-worker.js in the built site): the site may live under a sub-path.
const MODEL_URL = new URL("../models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", import.meta.url).href;
const WLLAMA_URL = new URL("../vendor/wllama/index.js", import.meta.url).href;
const WASM_URL = new URL("../vendor/wllama/wllama.wasm", import.meta.url).href;
// wllama's compatibility build, for the browsers without JSPI or memory64 (wasm-features.js): downloaded with the
// model only there (files.json's "only"), about 10x slower to answer.
const COMPAT = {
  wasm: new URL("../vendor/wllama-compat/wllama.wasm", import.meta.url).href,
  worker: new URL("../vendor/wllama-compat/wllama.js", import.meta.url).href,
};

// Generation defaults when the request does not say (the brief's "sane defaults").
const DEFAULT_MAX_TOKENS = 512;
const DEFAULT_TEMPERATURE = 0.7;
// 4096 tokens of KV cache cost about 94 MB for this model (30 layers x 3 KV heads x 64 x 2 x f16);
// SmolLM2 was trained with 8192. One request at a time (n_parallel 1) so it gets the whole context.
const N_CTX = 4096;
// Oldest turns are dropped beyond this many characters of prompt: about 3 characters per token leaves
// room for the reply in N_CTX (a prompt still too long gets an OpenAI-style 400 from the model server).
const CHARS_PER_TOKEN = 3;
// Beyond 4 threads a 135M model gains little and a phone's slow cores would hold the fast ones back.
const MAX_THREADS = 4;
// Progress messages at most this often while the GGUF downloads (a 98 MB body arrives in thousands of reads).
const PROGRESS_INTERVAL_MS = 100;
// Sampling fields passed through from the request as they are; anything else (tools, logprobs...) is dropped.
const PASSED_THROUGH = ["top_p", "top_k", "min_p", "stop", "seed", "presence_penalty", "frequency_penalty",
  "repeat_penalty"];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

let wllama = null; // the loaded Wllama instance
let loading = null; // the promise of the load in flight (or done)
const loadWatchers = new Map(); // request id -> reply function, told about load progress
let loadInfo = null; // {load_ms, threads, multithread, compat, chat_template}
let queue = Promise.resolve(); // one generation at a time: the model has one context
const controllers = new Map(); // request id -> AbortController

// ---------------------------------------------------------------- wiring

function listen(target, reply) {
  target.onmessage = (event) => {
    const data = event.data || {};
    if (data.type === "port" && event.ports && event.ports[0]) {
      const port = event.ports[0];
      listen(port, (message, transfer) => port.postMessage(message, transfer || []));
      return;
    }
    if (data.type === "abort") {
      controllers.get(data.id)?.abort();
      return;
    }
    if (data.type === "load") {
      ensureModel(data.id, reply).then(() => reply({ id: data.id, type: "end" }),
        (err) => reply({ id: data.id, type: "error", kind: "model_load", message: loadFailure(err) }));
      return;
    }
    if (data.type === "info") { // diagnostics for tests and the about screen
      reply({ id: data.id, type: "info", loaded: !!wllama, ...(loadInfo || {}) });
      return;
    }
    if (data.id !== undefined && typeof data.url === "string") handle(data, reply);
  };
}

listen(self, (message, transfer) => self.postMessage(message, transfer || []));

// ---------------------------------------------------------------- requests

function routeOf(url, method) {
  const path = url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  if (/\/models$/.test(path) && (method || "GET").toUpperCase() === "GET") return "models";
  if (/\/chat\/completions$/.test(path) && (method || "POST").toUpperCase() === "POST") return "chat";
  return null;
}

function sendJson(id, reply, status, doc) {
  const bytes = encoder.encode(JSON.stringify(doc));
  reply({ id, type: "head", status, headers: { "content-type": "application/json" } });
  reply({ id, type: "chunk", bytes }, [bytes.buffer]);
  reply({ id, type: "end" });
}

function apiError(id, reply, status, message, code) {
  sendJson(id, reply, status, { error: { message, type: "invalid_request_error", code } });
}

function handle(req, reply) {
  const route = routeOf(req.url, req.method);
  if (route === "models") {
    sendJson(req.id, reply, 200, { object: "list", data: [{ id: MODEL_ID, object: "model", owned_by: "local" }] });
    return;
  }
  if (route !== "chat") {
    apiError(req.id, reply, 404, `llm-worker has no ${req.method || "GET"} ${req.url}`, "not_found");
    return;
  }
  let body;
  try {
    body = parseBody(req.body);
  } catch (err) {
    apiError(req.id, reply, 400, `the request body is not JSON: ${err.message}`, "invalid_json");
    return;
  }
  if (!body || !Array.isArray(body.messages) || body.messages.length === 0) {
    apiError(req.id, reply, 400, "messages must be a non-empty array", "invalid_messages");
    return;
  }
  const controller = new AbortController();
  controllers.set(req.id, controller);
  const run = () => chat(req.id, body, controller.signal, reply);
  queue = queue.then(run, run).finally(() => controllers.delete(req.id));
}

function parseBody(body) {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return JSON.parse(body);
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return JSON.parse(decoder.decode(body));
  return body;
}

// ---------------------------------------------------------------- loading

function progress(stage, loaded, total) {
  for (const [id, reply] of loadWatchers) reply({ id, type: "progress", stage, loaded, total });
}

async function ensureModel(id, reply) {
  loadWatchers.set(id, reply);
  try {
    if (!loading) {
      loading = loadModel().catch((err) => {
        loading = null; // the next request tries again (e.g. the files were not there yet)
        throw err;
      });
    }
    await loading;
  } finally {
    loadWatchers.delete(id);
  }
}

async function fetchModel() {
  const response = await fetch(MODEL_URL);
  // The service worker keeps an on-demand model off the network until the user downloads it (sw.js).
  if (response.headers.get("X-OpenMasq-Missing")) {
    throw new Error("it is not downloaded on this device: download it in Settings → Offline and models");
  }
  if (!response.ok) throw new Error(`${MODEL_URL}: HTTP ${response.status}`);
  const total = Number(response.headers.get("content-length")) || 0;
  const reader = response.body.getReader();
  const parts = [];
  let loaded = 0;
  let last = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.byteLength;
    if (performance.now() - last > PROGRESS_INTERVAL_MS) {
      last = performance.now();
      progress("download", loaded, total || loaded);
    }
  }
  progress("download", loaded, loaded);
  return new Blob(parts);
}

async function loadModel() {
  const started = performance.now();
  const compat = needsWasmCompat();
  // The model first: when it is not downloaded, that is the error to show (wllama's files are in its group).
  const blob = await fetchModel();
  const { Wllama, CacheManager } = await import(WLLAMA_URL);
  progress("load", 0, 1);
  const instance = new Wllama({ default: WASM_URL }, {
    suppressNativeLog: true, logger: quietLogger(), cacheManager: new CacheManager([NO_STORAGE]) });
  // wllama's own fallback is its compatibility build from a CDN this app never reaches: ours, or none.
  // ("firefox_safari": wllama would otherwise refuse compat in any Firefox; Firefox ESR has JSPI and memory64.)
  instance.setCompat(compat ? COMPAT : null, "firefox_safari");
  await instance.loadModel([blob], {
    n_ctx: N_CTX,
    n_parallel: 1,
    n_threads: threadCount(),
    // CPU only: for a 135M model the wasm CPU path is fast enough and behaves the same everywhere.
    n_gpu_layers: 0,
    // llama.cpp formats the chat with the built-in template it detects from the GGUF's own
    // (ChatML). The Jinja path renders the same turns but adds SmolLM's default system prompt when
    // the request has none, and with it greedy decoding answered "What is the capital of France?"
    // with "L'Étoile, la Cité, la France, la France, ..." (measured); without it, "... is Paris."
    jinja: false,
  });
  wllama = instance;
  loadInfo = {
    load_ms: Math.round(performance.now() - started),
    multithread: instance.isMultithread(),
    compat,
    threads: instance.getNumThreads(),
    chat_template: !!instance.getChatTemplate(),
  };
  progress("ready", 1, 1);
}

/** wllama's model cache, unused: the model comes as a Blob, from the service worker's cache. Its default
 *  (the origin private file system) is not there in every engine (WebKitGTK's workers lack
 *  navigator.storage.getDirectory), and wllama refuses to start without a backend it can use. */
const NO_STORAGE = {
  isSupported: () => true,
  read: async () => null,
  write: async () => { throw new Error("the offline model is kept by the service worker, not by wllama"); },
  getSize: async () => -1,
  list: async () => [],
  delete: async () => {},
};

/** Threads for llama.cpp: wasm threads need a cross-origin isolated page (SharedArrayBuffer); wllama's
 *  own default (half the logical cores) gives one thread on a 2-core machine. */
function threadCount() {
  if (!self.crossOriginIsolated || typeof SharedArrayBuffer !== "function") return 1;
  return Math.max(1, Math.min(MAX_THREADS, navigator.hardwareConcurrency || 1));
}

function loadFailure(err) {
  return `the offline model did not load: ${err?.message || err}`;
}

function quietLogger() {
  return { debug: () => {}, log: () => {}, warn: (...a) => console.warn("[llm-worker]", ...a),
    error: (...a) => console.error("[llm-worker]", ...a) };
}

// ---------------------------------------------------------------- generation

/** The request's messages as plain role/content turns the chat template understands (no tools). */
function plainMessages(messages) {
  const out = [];
  for (const m of messages) {
    if (!m || typeof m !== "object") continue;
    const text = contentText(m.content);
    if (m.role === "tool") {
      if (text) out.push({ role: "user", content: `Tool result: ${text}` });
    } else if (m.role === "system" || m.role === "developer") {
      if (text) out.push({ role: "system", content: text });
    } else if (m.role === "assistant" || m.role === "user") {
      if (text || m.role === "user") out.push({ role: m.role, content: text });
    }
  }
  return out;
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === "string" ? p : p && typeof p.text === "string" ? p.text : ""))
      .filter(Boolean).join("\n");
  }
  return "";
}

/** Drops the oldest non-system turns until the prompt fits the context with room for the reply. */
function fitToContext(messages, maxTokens) {
  const budget = Math.max(256, (N_CTX - maxTokens) * CHARS_PER_TOKEN);
  const size = (list) => list.reduce((n, m) => n + m.content.length + 16, 0);
  const kept = [...messages];
  while (size(kept) > budget) {
    const index = kept.findIndex((m, i) => m.role !== "system" && i < kept.length - 1);
    if (index < 0) break;
    kept.splice(index, 1);
  }
  return kept;
}

function generationParams(body) {
  const requested = Number(body.max_completion_tokens ?? body.max_tokens);
  const maxTokens = Number.isFinite(requested) && requested > 0 ? Math.min(requested, N_CTX / 2) : DEFAULT_MAX_TOKENS;
  const temperature = Number.isFinite(Number(body.temperature)) && body.temperature !== null
    ? Number(body.temperature) : DEFAULT_TEMPERATURE;
  const params = { max_tokens: maxTokens, temperature };
  for (const key of PASSED_THROUGH) if (body[key] !== undefined && body[key] !== null) params[key] = body[key];
  return params;
}

function sseChunk(reply, id, doc) {
  const bytes = encoder.encode(typeof doc === "string" ? `data: ${doc}\n\n` : `data: ${JSON.stringify(doc)}\n\n`);
  reply({ id, type: "chunk", bytes }, [bytes.buffer]);
}

async function chat(id, body, signal, reply) {
  if (signal.aborted) return reply({ id, type: "error", kind: "aborted", message: "aborted before it started" });
  try {
    await ensureModel(id, reply);
  } catch (err) {
    return reply({ id, type: "error", kind: "model_load", message: loadFailure(err) });
  }
  if (signal.aborted) return reply({ id, type: "error", kind: "aborted", message: "aborted while the model loaded" });
  const params = generationParams(body);
  const messages = fitToContext(plainMessages(body.messages), params.max_tokens);
  const completionId = `chatcmpl-local-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const frame = (delta, finish) => ({
    id: completionId, object: "chat.completion.chunk", created, model: MODEL_ID,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  let headSent = false;
  let finish = null;
  let usage = null;
  let first = true;
  try {
    const stream = await wllama.createChatCompletion({ messages, stream: true, abortSignal: signal, ...params });
    for await (const chunk of stream) {
      const choice = chunk?.choices?.[0];
      if (chunk?.usage) usage = chunk.usage;
      if (!choice) continue;
      if (!headSent) {
        reply({ id, type: "head", status: 200, headers: { "content-type": "text/event-stream" } });
        headSent = true;
      }
      const text = choice.delta?.content;
      if (typeof text === "string" && text.length > 0) {
        sseChunk(reply, id, frame(first ? { role: "assistant", content: text } : { content: text }, null));
        first = false;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  } catch (err) {
    if (signal.aborted || err?.name === "AbortError" || err?.type === "abort") {
      return reply({ id, type: "error", kind: "aborted", message: "aborted" });
    }
    const message = String(err?.message || err);
    if (!headSent && /context|too long|exceed/i.test(message)) {
      return apiError(id, reply, 400, message, "context_length_exceeded");
    }
    return reply({ id, type: "error", kind: "inference", message });
  }
  if (signal.aborted) return reply({ id, type: "error", kind: "aborted", message: "aborted" });
  if (!headSent) reply({ id, type: "head", status: 200, headers: { "content-type": "text/event-stream" } });
  const last = frame({}, finish === "length" ? "length" : "stop");
  if (usage) last.usage = usage;
  sseChunk(reply, id, last);
  sseChunk(reply, id, "[DONE]");
  reply({ id, type: "end" });
}
