// Attached images, the page's side (issue 20, item 2): the image is decoded and drawn once on a canvas (EXIF
// orientation applied by the browser, scaled down past the side OCR reads), that drawing is what OCR reads
// (ocr-worker, off this thread) and what gets masked, so the boxes py-worker decides land where the words are;
// the masked image is the canvas with the boxes filled, encoded again as PNG (a canvas writes no EXIF, no
// text chunk, no colour profile of the file: nothing of the original file's metadata survives).
//
// Pure helpers (scaledSize, languagesFor, boxesInside) are exported for tests; the rest is the thin shell
// over createImageBitmap, OffscreenCanvas and the worker.
import { Comlink } from "./lib.js";

const WORKER_URL = new URL("../worker/ocr-worker.js", import.meta.url);
export const OCR_GROUP = "ocr"; // the on-demand download group (py/openmasq/site/build.py)
export const MASK_COLOUR = "#000000";

let worker = null;
let remote = null;

function ocrWorker() {
  if (!worker) {
    worker = new Worker(WORKER_URL, { type: "module", name: "ocr-worker" });
    remote = Comlink.wrap(worker);
  }
  return remote;
}

/** Stops a running OCR at once (tesseract cannot stop a recognition: its worker is terminated; the next
 *  image starts a new one). */
export function stopOcr() {
  if (worker) worker.terminate();
  worker = null;
  remote = null;
}

export class ImageError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = "ImageError";
    this.kind = kind; // "undecodable" | "not_downloaded" | "cancelled" | "failed"
  }
}

/** The size an image is read and masked at: its own, or scaled down so its longer side is `maxSide`. */
export function scaledSize(width, height, maxSide) {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), scale };
}

/** Boxes clamped to the image, in whole pixels (what is filled is never outside the drawing). */
export function boxesInside(boxes, width, height) {
  return boxes.map((b) => {
    const x0 = Math.max(0, Math.floor(b.x0));
    const y0 = Math.max(0, Math.floor(b.y0));
    return { x0, y0, x1: Math.min(width, Math.ceil(b.x1)), y1: Math.min(height, Math.ceil(b.y1)) };
  }).filter((b) => b.x1 > b.x0 && b.y1 > b.y0);
}

/** The image decoded and drawn at the size OCR reads: {canvas, width, height, png: ArrayBuffer, scaled}. */
export async function drawImage(blob, maxSide) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(blob, { imageOrientation: "from-image" });
  } catch (err) {
    throw new ImageError("undecodable", String(err?.message || err));
  }
  const size = scaledSize(bitmap.width, bitmap.height, maxSide);
  const canvas = new OffscreenCanvas(size.width, size.height);
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#ffffff"; // a transparent PNG reads as black text on black otherwise
  ctx.fillRect(0, 0, size.width, size.height);
  ctx.drawImage(bitmap, 0, 0, size.width, size.height);
  bitmap.close();
  const png = await (await canvas.convertToBlob({ type: "image/png" })).arrayBuffer();
  return { canvas, width: size.width, height: size.height, png, scaled: size.scale < 1 };
}

/** The drawing with every box filled, scaled down to the side that is sent: a new PNG (Blob). The boxes are
 *  filled at the size OCR read, then the whole is scaled: a covered pixel stays covered. */
export async function maskedPng(drawing, boxes, sendMaxSide) {
  const full = new OffscreenCanvas(drawing.width, drawing.height);
  const ctx = full.getContext("2d");
  ctx.drawImage(drawing.canvas, 0, 0);
  ctx.fillStyle = MASK_COLOUR;
  for (const b of boxesInside(boxes, drawing.width, drawing.height)) ctx.fillRect(b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0);
  const size = scaledSize(drawing.width, drawing.height, sendMaxSide);
  if (size.scale === 1) return full.convertToBlob({ type: "image/png" });
  const sent = new OffscreenCanvas(size.width, size.height);
  const small = sent.getContext("2d");
  small.imageSmoothingQuality = "high";
  small.drawImage(full, 0, 0, size.width, size.height);
  return sent.convertToBlob({ type: "image/png" });
}

/** Whether the OCR files are here (downloaded, or reachable while online without a service worker). */
export async function ocrAvailable() {
  try {
    return (await ocrWorker().available()).ready;
  } catch {
    return false;
  }
}

/** OCR of a drawing: {words, text, ms}. `onProgress({stage, progress})`; `signal` stops it (ImageError "cancelled"). */
/** @param {any} drawing @param {string[]} langs
 * @param {{onProgress?: (progress: {stage: string, progress: number}) => void, signal?: AbortSignal}} [options] */
export async function readWords(drawing, langs, { onProgress, signal } = {}) {
  if (signal?.aborted) throw new ImageError("cancelled", "cancelled");
  const copy = drawing.png.slice(0);
  const job = ocrWorker().recognize(Comlink.transfer(copy, [copy]), langs, onProgress ? Comlink.proxy(onProgress) : undefined);
  const stopped = new Promise((_, reject) => {
    signal?.addEventListener("abort", () => { stopOcr(); reject(new ImageError("cancelled", "cancelled")); }, { once: true });
  });
  try {
    return await Promise.race([job, stopped]);
  } catch (err) {
    if (err instanceof ImageError) throw err;
    const kind = String(err?.name || "").startsWith("OcrError:") ? err.name.slice("OcrError:".length) : "failed";
    throw new ImageError(kind === "not_downloaded" ? kind : "failed", String(err?.message || err));
  }
}

export function base64Of(bytes) {
  let text = "";
  const view = new Uint8Array(bytes);
  for (let i = 0; i < view.length; i += 0x8000) text += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return btoa(text);
}
