// ml-worker: the on-device models (issue 7) on onnxruntime-web (wasm), offline.
// - embeddings: multilingual-e5-small (models/e5/, q4) through transformers.js, `query: ` / `passage: ` prefixes,
//   masked mean pooling, L2 normalisation: the same vectors as the CPython Embedder (py/openmasq/embed/e5.py;
//   e2e/test_ml_parity.py);
// - NER: the project's own PER/ORG/LOC tagger (models/ner/model.onnx, trained by models/ner_train.py). This worker
//   only runs the network: the text is featurised and the scores decoded in Python (py/openmasq/ner/features.py,
//   decode.py, in Pyodide), the very code CPython runs around onnxruntime, so the two paths cannot drift.
//
// Port protocol (the style of net-worker and llm-worker; a port arrives as {type: "port", port}, or requests
// come on the worker itself):
// In:  {id, type: "load", model: "e5"|"ner"}   load now (otherwise on first use)
//      {id, type: "embed", texts: [..], kind: "query"|"passage"}
//      {id, type: "tag", ids: Int32Array, flags: Int32Array|Uint8Array, windows, length}
//           ids [windows, length, 6] and flags [windows, length, F] row-major, as features.featurise made them
//      {id, type: "info"}
// Out: {id, type: "progress", model, stage: "download"|"load"|"ready", loaded, total}
//      {id, type: "ready", model, load_ms}
//      {id, type: "embed", dim, count, vectors: Float32Array (count x dim, row-major; its buffer is transferred)}
//      {id, type: "tag", labels, scores: Float32Array (windows x length x labels; its buffer is transferred)}
//      {id, type: "info", models: {e5: {...}, ner: {...}}, threads, cross_origin_isolated}
//      {id, type: "error", kind: "model_load"|"inference"|"bad_request", message}
// This worker is served with connect-src 'self' (csp.py): it can only read the site's own files.

import { env, pipeline } from "../vendor/transformers/transformers.min.js";
import * as ort from "../vendor/transformers/ort.wasm.min.mjs";

const VENDOR = new URL("../vendor/transformers/", import.meta.url);
// A PATH, not an http URL: with a URL transformers.js silently skips the tokenizer (toolchain.md).
const MODELS_PATH = new URL("../models/", import.meta.url).pathname;
const PREFIXES = { query: "query: ", passage: "passage: " };
const DTYPE = "q4";
const NER_DIR = new URL("../models/ner/", import.meta.url);
// What py/openmasq/ner/features.py and decode.py expect of the model (ner/runtime.py checks the same).
const NER_FEATURES_VERSION = 1;
const NER_ID_COLUMNS = 6;

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = MODELS_PATH;
// The service worker already caches every model file; a second copy in Cache Storage would double the disk use.
env.useBrowserCache = false;
// Otherwise the ORT glue is fetched and imported from a blob: URL, which the worker's script-src 'self' refuses;
// imported from its own URL it is allowed (and the service worker caches it).
env.useWasmCache = false;
env.backends.onnx.wasm.wasmPaths = {
  mjs: new URL("ort-wasm-simd-threaded.mjs", VENDOR).href,
  wasm: new URL("ort-wasm-simd-threaded.wasm", VENDOR).href,
};
// Threads need SharedArrayBuffer, which only a cross-origin-isolated page has (COOP/COEP); WebKitGTK 2.50
// has none even when isolated (issue 24, measured), so both are asked.
const SHARED_MEMORY = self.crossOriginIsolated && typeof SharedArrayBuffer === "function";
const THREADS = SHARED_MEMORY ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
env.backends.onnx.wasm.numThreads = THREADS;
env.backends.onnx.wasm.proxy = false;
// The NER model's own ORT (the same onnxruntime-web build, same wasm files).
ort.env.wasm.wasmPaths = env.backends.onnx.wasm.wasmPaths;
ort.env.wasm.numThreads = THREADS;
ort.env.wasm.proxy = false;

const models = {}; // name -> {promise, value, load_ms, error}
const watchers = new Map(); // request id -> reply, told about load progress
/** @type {Promise<unknown>} */
let queue = Promise.resolve(); // one inference at a time: a wasm session runs one call at a time

// ---------------------------------------------------------------- wiring

function listen(target, reply) {
  target.onmessage = (event) => {
    const data = event.data || {};
    if (data.type === "port" && event.ports && event.ports[0]) {
      const port = event.ports[0];
      listen(port, (message, transfer) => port.postMessage(message, transfer || []));
      return;
    }
    if (data.id === undefined) return;
    handle(data, reply).catch((err) => reply({ id: data.id, type: "error", kind: err.kind || "inference",
      message: String(err && err.message ? err.message : err) }));
  };
}

listen(self, (message, transfer) => self.postMessage(message, transfer || []));

class MlError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

async function handle(req, reply) {
  if (req.type === "info") {
    reply({ id: req.id, type: "info", threads: THREADS, cross_origin_isolated: Boolean(self.crossOriginIsolated),
      models: Object.fromEntries(Object.entries(models).map(([name, m]) => [name,
        { loaded: Boolean(m.value), load_ms: m.load_ms ?? null, error: m.error ?? null }])) });
    return;
  }
  if (req.type === "load") {
    if (!LOADERS[req.model]) throw new MlError("bad_request", `no model ${req.model}`);
    const model = await ensure(req.model, req.id, reply);
    reply({ id: req.id, type: "ready", model: req.model, load_ms: model.load_ms });
    return;
  }
  if (req.type === "embed") {
    const kind = req.kind || "passage";
    if (!PREFIXES[kind]) throw new MlError("bad_request", `kind must be query or passage, not ${kind}`);
    if (!Array.isArray(req.texts) || req.texts.some((t) => typeof t !== "string")) {
      throw new MlError("bad_request", "texts must be an array of strings");
    }
    const { value: extractor } = await ensure("e5", req.id, reply);
    const vectors = await serial(() => embed(extractor, req.texts, kind));
    reply({ id: req.id, type: "embed", dim: vectors.dim, count: req.texts.length, vectors: vectors.data },
      [vectors.data.buffer]);
    return;
  }
  if (req.type === "tag") {
    const input = tagInput(req);
    const { value: ner } = await ensure("ner", req.id, reply);
    const scores = await serial(() => tag(ner, input));
    reply({ id: req.id, type: "tag", labels: ner.labels.length, scores }, [scores.buffer]);
    return;
  }
  throw new MlError("bad_request", `unknown request type ${req.type}`);
}

/** Runs `work` after the work queued before it (one inference at a time).
 * @template T @param {() => Promise<T>} work @returns {Promise<T>} */
function serial(work) {
  const run = queue.then(work, work);
  queue = run.catch(() => {});
  return run;
}

// ---------------------------------------------------------------- loading

const LOADERS = {
  e5: async (progress) => {
    await downloaded(new URL("../models/e5/config.json", import.meta.url), "e5 (search by meaning)");
    return pipeline("feature-extraction", "e5", { dtype: DTYPE, device: "wasm", progress_callback: progress });
  },
  ner: (progress) => loadNer(progress),
};

/** An on-demand model the user has not downloaded is answered "Not downloaded" by the service worker
 *  (sw.js): said plainly instead of transformers.js's "could not locate file". */
async function downloaded(url, label) {
  const response = await fetch(url, { method: "HEAD" });
  if (response.headers.get("X-OpenMasq-Missing")) {
    throw new Error(`${label} is not downloaded on this device: download it in Settings → Offline and models`);
  }
}

function ensure(name, id, reply) {
  if (id !== undefined && reply) watchers.set(`${name}:${id}`, { id, reply, name });
  let entry = models[name];
  if (!entry || entry.error) {
    entry = models[name] = { promise: null, value: null };
    const started = performance.now();
    const files = new Map();
    const progress = (info) => {
      if (info.status === "progress" && info.file) {
        files.set(info.file, { loaded: info.loaded || 0, total: info.total || 0 });
        let loaded = 0;
        let total = 0;
        for (const f of files.values()) {
          loaded += f.loaded;
          total += Math.max(f.total, f.loaded);
        }
        tell(name, { stage: "download", loaded, total });
      }
    };
    entry.promise = LOADERS[name](progress).then((value) => {
      entry.value = value;
      entry.load_ms = Math.round(performance.now() - started);
      tell(name, { stage: "ready", loaded: 1, total: 1 });
      return entry;
    }, (err) => {
      entry.error = String(err && err.message ? err.message : err);
      throw new MlError("model_load", `${name}: ${entry.error}`);
    });
  }
  return entry.promise.finally(() => {
    if (id !== undefined) watchers.delete(`${name}:${id}`);
  });
}

function tell(name, progress) {
  for (const w of watchers.values()) {
    if (w.name === name) w.reply({ id: w.id, type: "progress", model: name, ...progress });
  }
}

// ---------------------------------------------------------------- embeddings

async function embed(extractor, texts, kind) {
  if (texts.length === 0) return { dim: 384, data: new Float32Array(0) };
  const output = await extractor(texts.map((t) => PREFIXES[kind] + t), { pooling: "mean", normalize: true });
  const dim = output.dims[output.dims.length - 1];
  return { dim, data: Float32Array.from(output.data) };
}

// ---------------------------------------------------------------- NER

async function fetchBytes(url, progress) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  progress({ status: "progress", file: url.pathname, loaded: bytes.length, total: bytes.length });
  return bytes;
}

async function loadNer(progress) {
  const config = JSON.parse(new TextDecoder().decode(await fetchBytes(new URL("config.json", NER_DIR), progress)));
  if (config.features_version !== NER_FEATURES_VERSION || config.id_columns !== NER_ID_COLUMNS) {
    throw new Error(`models/ner was trained for features ${config.features_version}/${config.id_columns} columns, `
      + `this worker speaks ${NER_FEATURES_VERSION}/${NER_ID_COLUMNS}`);
  }
  const model = await fetchBytes(new URL("model.onnx", NER_DIR), progress);
  const session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
  return { session, labels: config.labels, flagCount: Number(config.flag_count) };
}

/** The request's arrays, checked: what Python sent must be whole. */
function tagInput(req) {
  const windows = Number(req.windows);
  const length = Number(req.length);
  if (!Number.isInteger(windows) || !Number.isInteger(length) || windows < 1 || length < 1) {
    throw new MlError("bad_request", "windows and length must be positive integers");
  }
  const ids = intArray(req.ids, "ids");
  const flags = intArray(req.flags, "flags");
  if (ids.length !== windows * length * NER_ID_COLUMNS) {
    throw new MlError("bad_request", `ids: ${ids.length} values for ${windows}x${length}x${NER_ID_COLUMNS}`);
  }
  if (flags.length % (windows * length) !== 0) throw new MlError("bad_request", "flags do not fit the windows");
  return { ids, flags, windows, length };
}

function intArray(value, name) {
  if (value instanceof Int32Array || value instanceof Uint8Array || value instanceof Int8Array) return value;
  if (Array.isArray(value) && value.every(Number.isInteger)) return Int32Array.from(value);
  throw new MlError("bad_request", `${name} must be an Int32Array or an array of integers`);
}

function int64(values) {
  const out = new BigInt64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = BigInt(values[i]);
  return out;
}

/** The network's scores [windows, length, labels] for the featurised text. */
async function tag(ner, { ids, flags, windows, length }) {
  const flagCount = flags.length / (windows * length);
  if (flagCount !== ner.flagCount) throw new MlError("bad_request", `${flagCount} flags per word, the model takes ${ner.flagCount}`);
  const feeds = {
    ids: new ort.Tensor("int64", int64(ids), [windows, length, NER_ID_COLUMNS]),
    flags: new ort.Tensor("int64", int64(flags), [windows, length, flagCount]),
  };
  const { scores } = await ner.session.run(feeds);
  return Float32Array.from(scores.data);
}
