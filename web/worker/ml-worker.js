// ml-worker: the on-device models (issue 7) on transformers.js + onnxruntime-web (wasm), offline.
// - embeddings: multilingual-e5-small (models/e5/, q4), `query: ` / `passage: ` prefixes, masked mean pooling,
//   L2 normalisation: the same vectors as the CPython Embedder (py/openmasq/embed/e5.py; e2e/test_ml_parity.py);
// - NER: the Rampart token classifier (models/rampart/, q4) with the algorithm of the CPython Recogniser
//   (py/openmasq/ner/recogniser.py): BERT words, each labelled by its first sub-token, windows of the model's
//   length sharing 64 tokens, BIO decoding over words. Offsets are CODE POINTS of the text (Python's string
//   indices), so the spans go straight into the redaction engine (redact/ner_merge.py decides what is kept).
//
// Port protocol (the style of net-worker and llm-worker; a port arrives as {type: "port", port}, or requests
// come on the worker itself):
// In:  {id, type: "load", model: "e5"|"rampart"}   load now (otherwise on first use)
//      {id, type: "embed", texts: [..], kind: "query"|"passage"}
//      {id, type: "ner", text}
//      {id, type: "info"}
// Out: {id, type: "progress", model, stage: "download"|"load"|"ready", loaded, total}
//      {id, type: "ready", model, load_ms}
//      {id, type: "embed", dim, count, vectors: Float32Array (count x dim, row-major; its buffer is transferred)}
//      {id, type: "ner", spans: [{start, end, value, kind, score}]}   kind: the model's label in lower case
//      {id, type: "info", models: {e5: {...}, rampart: {...}}, threads, cross_origin_isolated}
//      {id, type: "error", kind: "model_load"|"inference"|"bad_request", message}
// This worker is served with connect-src 'self' (csp.py): it can only read the site's own files.

import { AutoModelForTokenClassification, AutoTokenizer, Tensor, env, pipeline } from "../vendor/transformers/transformers.min.js";

const VENDOR = new URL("../vendor/transformers/", import.meta.url);
// A PATH, not an http URL: with a URL transformers.js silently skips the tokenizer (toolchain.md).
const MODELS_PATH = new URL("../models/", import.meta.url).pathname;
const PREFIXES = { query: "query: ", passage: "passage: " };
const DTYPE = "q4";
// The CPython Recogniser's constants (ner/recogniser.py): [CLS] and [SEP] take two positions; neighbouring
// windows share 64 tokens.
const SPECIAL_TOKENS = 2;
const OVERLAP = 64;

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
// Threads need SharedArrayBuffer, which only a cross-origin-isolated page has (COOP/COEP).
const THREADS = self.crossOriginIsolated ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
env.backends.onnx.wasm.numThreads = THREADS;
env.backends.onnx.wasm.proxy = false;

const models = {}; // name -> {promise, value, load_ms, error}
const watchers = new Map(); // request id -> reply, told about load progress
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
  if (req.type === "ner") {
    if (typeof req.text !== "string") throw new MlError("bad_request", "text must be a string");
    const { value: ner } = await ensure("rampart", req.id, reply);
    const spans = await serial(() => recognise(ner, req.text));
    reply({ id: req.id, type: "ner", spans });
    return;
  }
  throw new MlError("bad_request", `unknown request type ${req.type}`);
}

function serial(work) {
  const run = queue.then(work, work);
  queue = run.catch(() => {});
  return run;
}

// ---------------------------------------------------------------- loading

const LOADERS = {
  e5: (progress) => pipeline("feature-extraction", "e5", { dtype: DTYPE, device: "wasm", progress_callback: progress }),
  rampart: async (progress) => {
    const options = { dtype: DTYPE, device: "wasm", progress_callback: progress };
    const [tokenizer, model] = await Promise.all([
      AutoTokenizer.from_pretrained("rampart", { progress_callback: progress }),
      AutoModelForTokenClassification.from_pretrained("rampart", options),
    ]);
    return nerModel(tokenizer, model);
  },
};

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

function nerModel(tokenizer, model) {
  const config = model.config;
  const labels = {};
  for (const [k, v] of Object.entries(config.id2label)) labels[Number(k)] = String(v);
  const window = Number(config.max_position_embeddings) - SPECIAL_TOKENS;
  const id = (token) => {
    const found = tokenizer.convert_tokens_to_ids(token);
    if (found === undefined || found === null) throw new Error(`the tokenizer has no ${token} token`);
    return found;
  };
  return { tokenizer, model, labels, window, cls: id("[CLS]"), sep: id("[SEP]"), pad: Number(config.pad_token_id ?? 0),
    inputs: new Set(model.sessions?.model?.inputNames || ["input_ids", "attention_mask", "token_type_ids"]) };
}

// BERT's pre-tokenisation (BertNormalizer + BertPreTokenizer): words are split at white space and punctuation
// (each punctuation character a word of its own), and CJK ideographs stand alone. Characters BertNormalizer
// removes (controls, format characters) join no word edge.
const WHITE = /^[\s\u0085]$/u;
const PUNCT = /^[\p{P}!-\/:-@\[-`{-~]$/u;
const REMOVED = /^[\p{Cc}\p{Cf}\p{Co}\p{Cn}\u0000\ufffd]$/u;

function isCjk(cp) {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x20000 && cp <= 0x2a6df)
    || (cp >= 0x2a700 && cp <= 0x2b73f) || (cp >= 0x2b740 && cp <= 0x2b81f) || (cp >= 0x2b820 && cp <= 0x2ceaf)
    || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f);
}

function isWhite(ch) {
  return ch !== "\ufeff" && (WHITE.test(ch) || ch === "\t" || ch === "\n" || ch === "\r");
}

function isRemoved(ch) {
  return !isWhite(ch) && REMOVED.test(ch);
}

/** [start, end) code-point ranges of the pre-tokenised words. */
export function bertWords(chars) {
  const words = [];
  let start = -1;
  const close = (end) => {
    if (start < 0) return;
    let a = start;
    let b = end;
    while (a < b && isRemoved(chars[a])) a++;
    while (b > a && isRemoved(chars[b - 1])) b--;
    if (a < b) words.push([a, b]);
    start = -1;
  };
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (isWhite(ch)) {
      close(i);
    } else if (PUNCT.test(ch) || isCjk(ch.codePointAt(0))) {
      close(i);
      words.push([i, i + 1]);
    } else if (start < 0) {
      start = i;
    }
  }
  close(chars.length);
  return words;
}

export function windowStarts(length, window, overlap) {
  if (length <= window) return [0];
  const step = window - overlap;
  const starts = [];
  for (let s = 0; s < length - window; s += step) starts.push(s);
  starts.push(length - window);
  return starts;
}

export function bestWindow(length, starts, window) {
  const chosen = [];
  for (let token = 0; token < length; token++) {
    let best = 0;
    let bestMargin = -1;
    starts.forEach((start, index) => {
      const end = start + window;
      if (token < start || token >= end) return;
      const left = start === 0 ? Infinity : token - start;
      const right = end >= length ? Infinity : end - 1 - token;
      const margin = Math.min(left, right);
      if (margin > bestMargin) {
        best = index;
        bestMargin = margin;
      }
    });
    chosen.push(best);
  }
  return chosen;
}

async function recognise(ner, text) {
  const chars = Array.from(text); // code points: offsets match Python's
  const tokens = []; // token ids of the whole text
  const firstToken = []; // per word: index of its first token, or -1 when it has none
  const words = bertWords(chars);
  for (const [a, b] of words) {
    const ids = ner.tokenizer.encode(chars.slice(a, b).join(""), { add_special_tokens: false });
    firstToken.push(ids.length ? tokens.length : -1);
    for (const t of ids) tokens.push(t);
  }
  if (!tokens.length) return [];
  const probs = await tokenProbabilities(ner, tokens);
  const labelled = [];
  words.forEach(([a, b], w) => {
    const t = firstToken[w];
    if (t < 0) return;
    const row = probs[t];
    let best = 0;
    for (let k = 1; k < row.length; k++) if (row[k] > row[best]) best = k;
    labelled.push({ start: a, end: b, label: ner.labels[best], score: row[best] });
  });
  return entities(chars, labelled);
}

/** [tokens][labels] probabilities, each token from the window where it has most context (ner/recogniser.py). */
async function tokenProbabilities(ner, ids) {
  const starts = windowStarts(ids.length, ner.window, OVERLAP);
  const pieces = starts.map((s) => ids.slice(s, s + ner.window));
  const width = Math.max(...pieces.map((p) => p.length)) + SPECIAL_TOKENS;
  const inputIds = new BigInt64Array(pieces.length * width).fill(BigInt(ner.pad));
  const mask = new BigInt64Array(pieces.length * width);
  pieces.forEach((piece, row) => {
    const line = [ner.cls, ...piece, ner.sep];
    line.forEach((t, j) => {
      inputIds[row * width + j] = BigInt(t);
      mask[row * width + j] = 1n;
    });
  });
  const dims = [pieces.length, width];
  const feeds = { input_ids: new Tensor("int64", inputIds, dims), attention_mask: new Tensor("int64", mask, dims) };
  if (ner.inputs.has("token_type_ids")) feeds.token_type_ids = new Tensor("int64", new BigInt64Array(inputIds.length), dims);
  const { logits } = await ner.model(feeds);
  const labels = logits.dims[2];
  const data = logits.data;
  const chosen = bestWindow(ids.length, starts, ner.window);
  const out = [];
  for (let i = 0; i < ids.length; i++) {
    const w = chosen[i];
    const position = i - starts[w] + 1; // after [CLS]
    const base = (w * width + position) * labels;
    let max = -Infinity;
    for (let k = 0; k < labels; k++) max = Math.max(max, data[base + k]);
    const row = new Float64Array(labels);
    let sum = 0;
    for (let k = 0; k < labels; k++) {
      row[k] = Math.exp(data[base + k] - max);
      sum += row[k];
    }
    for (let k = 0; k < labels; k++) row[k] /= sum;
    out.push(row);
  }
  return out;
}

/** BIO decoding over words: B-X opens an entity, I-X extends an open X entity (or opens one). */
function entities(chars, words) {
  const spans = [];
  let current = [];
  let kind = "";
  const close = () => {
    if (!current.length) return;
    const start = current[0].start;
    const end = current[current.length - 1].end;
    const score = current.reduce((s, w) => s + w.score, 0) / current.length;
    spans.push({ start, end, value: chars.slice(start, end).join(""), kind, score: Math.round(score * 1e4) / 1e4 });
    current = [];
  };
  for (const word of words) {
    const dash = word.label.indexOf("-");
    if (dash < 0) { // "O"
      close();
      kind = "";
      continue;
    }
    const prefix = word.label.slice(0, dash);
    const label = word.label.slice(dash + 1).toLowerCase();
    if (prefix === "I" && label === kind && current.length) {
      current.push(word);
      continue;
    }
    close();
    kind = label;
    current.push(word);
  }
  close();
  return spans;
}
