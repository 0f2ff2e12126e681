// ocr-worker: on-device OCR of an attached image (issue 20, item 2) with tesseract.js, off the page's thread.
// It reads the words of an image and their boxes; it decides nothing about them (py-worker's engine says which
// words are personal data: py/openmasq/attach/ocr.py), and it never sees anything but the image it is given.
//
// Every file comes from the site (vendor/tesseract/, the on-demand group "ocr": py/openmasq/site/ocrfiles.py):
// tesseract.js would otherwise fetch its worker, core and language data from a CDN; each path is named here,
// the worker script is loaded from its own URL (not a blob:, which script-src 'self' refuses), and the language
// data is not copied into IndexedDB (the service worker already keeps it). This worker is served with
// connect-src 'self' (csp.py) like every script but net-worker.
//
// API (Comlink): available() -> {ready, missing}; recognize(png: ArrayBuffer, langs: ["fra", "eng"], onProgress)
// -> {words: [{text, x0, y0, x1, y1, line, block, conf}], text, langs, ms}; onProgress({stage, progress 0-1}).
// Cancelling is terminating this worker (the page does it; tesseract has no cancel of a running recognition).

import * as Comlink from "../vendor/comlink.mjs";

const DIR = new URL("../vendor/tesseract/", import.meta.url);
const CORE = "tesseract-core-simd-lstm.js";
const MISSING_HEADER = "X-OpenMasq-Missing"; // sw.js: an on-demand file not downloaded on this device
export const LANGS = ["eng", "fra", "deu", "spa", "ita", "por", "nld"];

let engine = null; // {langs: "fra+eng", worker, ready: Promise}
let progressTo = null; // the current job's progress callback (tesseract's logger is set once per worker)

class OcrError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = "OcrError";
    this.kind = kind; // "not_downloaded" | "bad_request" | "failed"
  }
}

/** Whether the OCR files are on this device (downloaded from Settings) or reachable from the site. */
async function available() {
  const files = ["tesseract.esm.min.js", "worker.min.js", CORE, "tesseract-core-simd-lstm.wasm"];
  const missing = [];
  for (const name of files) {
    const response = await fetch(new URL(name, DIR), { method: "HEAD" });
    if (!response.ok || response.headers.get(MISSING_HEADER)) missing.push(name);
  }
  return { ready: missing.length === 0, missing };
}

function stageOf(status) {
  if (/core/.test(status)) return "load";
  if (/language|traineddata/.test(status)) return "language";
  if (/initiali/.test(status)) return "initialise";
  if (/recogni/.test(status)) return "recognise";
  return "load";
}

async function start(langs) {
  const key = langs.join("+");
  if (engine?.key === key) return engine.ready;
  if (engine) await engine.ready.then((w) => w.terminate(), () => {});
  const ready = (async () => {
    const { ready: here } = await available();
    if (!here) throw new OcrError("not_downloaded", "OCR is not downloaded on this device");
    const { default: Tesseract } = await import(new URL("tesseract.esm.min.js", DIR).href);
    return Tesseract.createWorker(langs, Tesseract.OEM.LSTM_ONLY, {
      workerPath: new URL("worker.min.js", DIR).href,
      corePath: new URL(CORE, DIR).href,
      langPath: new URL("lang", DIR).href,
      workerBlobURL: false,
      cacheMethod: "none",
      gzip: true,
      logger: (m) => progressTo?.({ stage: stageOf(m.status || ""), progress: Number(m.progress) || 0 }),
      errorHandler: () => {},
    });
  })();
  engine = { key, ready };
  ready.catch(() => { if (engine?.ready === ready) engine = null; });
  return ready;
}

/** Tesseract's blocks -> a flat list of words in reading order, each with its line and paragraph number. */
export function wordsOf(blocks) {
  const words = [];
  let line = 0;
  let block = 0;
  for (const b of blocks || []) {
    for (const paragraph of b.paragraphs || []) {
      for (const l of paragraph.lines || []) {
        for (const w of l.words || []) {
          const { x0, y0, x1, y1 } = w.bbox;
          words.push({ text: w.text, x0, y0, x1, y1, line, block, conf: Math.round(w.confidence * 10) / 10 });
        }
        line += 1;
      }
      block += 1;
    }
  }
  return words;
}

async function recognize(png, langs, onProgress) {
  if (!(png instanceof ArrayBuffer) || !png.byteLength) throw new OcrError("bad_request", "expected the image's bytes");
  const wanted = (langs || []).filter((l) => LANGS.includes(l));
  if (!wanted.length) throw new OcrError("bad_request", "no language OCR knows");
  progressTo = onProgress || null;
  const started = performance.now();
  try {
    const worker = await start(wanted);
    const { data } = await worker.recognize(new Uint8Array(png), {}, { text: true, blocks: true });
    return { words: wordsOf(data.blocks), text: data.text, langs: wanted, ms: Math.round(performance.now() - started) };
  } catch (err) {
    if (err instanceof OcrError) throw err;
    throw new OcrError("failed", String(err?.message || err));
  } finally {
    progressTo = null;
  }
}

// Comlink carries an Error's name and message: the kind goes in the name ("OcrError:not_downloaded").
function tagged(fn) {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      const error = new Error(err.message);
      error.name = `OcrError:${err.kind || "failed"}`;
      throw error;
    }
  };
}

if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
  Comlink.expose({ available: tagged(available), recognize: tagged(recognize) });
}
