// The review of an attached image (issue 20, item 2), a dialog of its own: OCR on the device (downloaded first
// if it is not here, size said, with progress), then the image as it would go, its personal data covered by
// black boxes py-worker decided, and the choice of what goes: the masked image, or only the text read (masked
// like a document). A photo in which OCR found no text goes only with the user's explicit consent for that
// image, said plainly. Reading and masking are cancellable; nothing is staged until "Attach".
//
// reviewImage(api, file, {conversationId, onProgress}) -> Promise<null | {choice: "image"|"text",
//   png: ArrayBuffer|null (the masked PNG, for "image"), ocrText, masked, hasText}>
import { html, render, useEffect, useRef, useState } from "../lib.js";
import { t, formatBytes } from "../i18n.js";
import { Dialog } from "./ui.js";
import { kindLabel } from "./message.js";
import { downloadModel, modelStates, onModelsChange } from "../downloads.js";
import { ImageError, OCR_GROUP, base64Of, drawImage, maskedPng, ocrAvailable, readWords, stopOcr } from "../ocr.js";

const STAGE_SHARE = { load: [0, 10], language: [10, 25], initialise: [25, 30], recognise: [30, 90], mask: [90, 100] };

/** An OCR progress event as a share of the whole review's reading (0-100). */
export function percentOf(stage, progress) {
  const [from, to] = STAGE_SHARE[stage] || [0, 10];
  return Math.round(from + (to - from) * Math.min(1, Math.max(0, progress || 0)));
}

/** The OCR'd text with each masked value shown as its kind (before the conversation exists no fake is final). */
export function segmentsOf(text, masked) {
  const out = [];
  let at = 0;
  for (const m of [...masked].sort((a, b) => a.start - b.start)) {
    if (m.start < at) continue;
    if (m.start > at) out.push({ text: text.slice(at, m.start) });
    out.push({ text: m.fake || `[${kindLabel(m.kind)}]`, kind: m.kind });
    at = m.end;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}

function refused(reason, message) {
  const error = new Error(JSON.stringify({ reason, message }));
  error.name = "AttachmentRefused"; // what the composer's attachments understand (components/attachments.js)
  return error;
}

/** The composer's seam for an image (components/attachments.js stageImage): the review, then the image staged
 *  in py-worker as the user chose it; the staged view, or an AttachmentRefused error. */
export async function stageReviewedImage(api, file, key, onProgress, conversationId = null) {
  const result = await reviewImage(api, file, { conversationId, onProgress });
  if (!result || result.error) {
    throw refused(result?.error ? "image_unreadable" : "image_declined", result?.error?.message || "not attached");
  }
  return api.image("stageImage", [key, file.name || "image.png", file.size, result.ocrText,
    result.png ? base64Of(result.png) : null, result.masked.map((m) => m.value)]);
}

/** The values masked on an image, each once, with how many times it is covered. */
export function distinctMasked(masked) {
  const seen = new Map();
  for (const m of masked) {
    const key = `${m.kind}\u0000${m.value}`;
    if (seen.has(key)) seen.get(key).count += 1; else seen.set(key, { ...m, count: 1 });
  }
  return [...seen.values()];
}

function bytesOf(b64) {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** A scanned PDF (its reader refused it: no text layer): its page images read by OCR on the device, the text
 *  read reviewed masked, then staged as that text alone (a scan goes as text, never as page images). */
export async function stageScannedPdf(api, file, key, onProgress, conversationId = null) {
  const scan = await api.image("scanPages", [base64Of(await file.arrayBuffer())]);
  const pages = scan.images.map((p) => ({ page: p.page, blob: new Blob([bytesOf(p.data)], { type: p.media_type }) }));
  const result = await reviewImage(api, file, { conversationId, onProgress,
    scan: { pages, unread: scan.unread, total: scan.pages } });
  if (!result || result.error) {
    throw refused(result?.error ? "scan_unreadable" : "scan_declined", result?.error?.message || "not attached");
  }
  return api.image("stageImage", [key, file.name || "scan.pdf", file.size, result.ocrText, null]);
}

/** @param {any} api @param {Blob & {name?: string}} file
 * @param {{conversationId?: string | null, onProgress?: (progress: {done: number, total: number}) => void, scan?: any}} [options] */
export function reviewImage(api, file, { conversationId = null, onProgress, scan = null } = {}) {
  return new Promise((resolve) => {
    const host = document.createElement("div");
    host.className = "image-review-host";
    document.body.append(host);
    const done = (result) => {
      render(null, host);
      host.remove();
      resolve(result);
    };
    render(html`<${ImageReview} api=${api} file=${file} conversationId=${conversationId} onProgress=${onProgress}
      scan=${scan} onDone=${done} />`, host);
  });
}

/** Each page of a scan read by OCR and masked; its texts joined under their page numbers, the masked values'
 *  offsets moved onto the joined text. */
async function readScan(api, scan, limits, conversationId, signal, step) {
  const texts = [];
  const masked = [];
  let length = 0;
  let hasText = false;
  for (const [index, { page, blob }] of scan.pages.entries()) {
    const share = (stage, p) => step(stage, p, index, scan.pages.length);
    const drawing = await drawImage(blob, limits.max_side);
    const ocr = await readWords(drawing, limits.langs, { signal, onProgress: (p) => share(p.stage, p.progress) });
    share("mask", 0);
    let plan;
    try {
      plan = await api.image("planImageMask", [conversationId, ocr.words, drawing.width, drawing.height, null]);
    } catch (err) {
      throw new ImageError("mask", err?.message || String(err));
    }
    const head = `[Page ${page}]\n`;
    const at = length + (texts.length ? 2 : 0) + head.length;
    masked.push(...plan.masked.map((m) => ({ ...m, start: m.start + at, end: m.end + at })));
    texts.push(head + plan.ocr_text);
    length = at + plan.ocr_text.length;
    hasText ||= plan.has_text;
  }
  return { boxes: [], masked, ocr_text: texts.join("\n\n"), has_text: hasText, text: null };
}

function ImageReview({ api, file, conversationId, onProgress, scan, onDone }) {
  const [stage, setStage] = useState("start"); // start | download | reading | review | error
  const [progress, setProgress] = useState(/** @type {{stage: string, percent: number, page?: number, pages?: number}} */ ({ stage: "load", percent: 0 }));
  const [download, setDownload] = useState(null); // {bytes, loaded, failed}
  const [view, setView] = useState(null); // {plan, url, masked, scaled}
  const [error, setError] = useState(null);
  const [choice, setChoice] = useState("image");
  const [consent, setConsent] = useState(false);
  const abort = useRef(new AbortController());
  const limits = useRef(null);

  const step = (name, value, page = 0, pages = 1) => {
    const percent = Math.round((page * 100 + percentOf(name, value)) / pages);
    setProgress({ stage: name, percent, page: page + 1, pages });
    onProgress?.({ done: percent, total: 100 });
  };

  const read = async () => {
    setStage("reading");
    step("load", 0);
    try {
      if (scan) {
        const plan = await readScan(api, scan, limits.current, conversationId, abort.current.signal, step);
        if (!plan.has_text) throw new ImageError("scan_empty", "no text was read on the pages");
        setView({ plan, scan });
        setChoice("text");
        setStage("review");
        return;
      }
      const drawing = await drawImage(file, limits.current.max_side);
      const ocr = await readWords(drawing, limits.current.langs,
        { signal: abort.current.signal, onProgress: (p) => step(p.stage, p.progress) });
      step("mask", 0);
      let plan;
      try {
        plan = await api.image("planImageMask", [conversationId, ocr.words, drawing.width, drawing.height, null]);
      } catch (err) {
        throw new ImageError("mask", err?.message || String(err));
      }
      const masked = await maskedPng(drawing, plan.boxes, limits.current.send_max_side);
      step("mask", 1);
      // A data: URL (img-src allows it; connect-src does not let the page read a blob: back): the very bytes sent.
      setView({ plan, masked, url: `data:image/png;base64,${base64Of(await masked.arrayBuffer())}`,
        scaled: drawing.scaled || Math.max(drawing.width, drawing.height) > limits.current.send_max_side });
      setChoice("image");
      setStage("review");
    } catch (err) {
      if (err?.kind === "cancelled") return;
      if (err?.kind === "not_downloaded") { await offerDownload(); return; }
      setError(err);
      setStage("error");
    }
  };

  const offerDownload = async () => {
    const states = await modelStates().catch(() => ({}));
    setDownload({ bytes: states[OCR_GROUP]?.bytes || 0, loaded: states[OCR_GROUP]?.stored || 0, failed: false,
      running: false });
    setStage("download");
  };

  useEffect(() => {
    let alive = true;
    (async () => {
      try {
        limits.current = await api.image("imageLimits", [conversationId]);
      } catch (err) {
        if (alive) { setError(new ImageError("failed", err?.message || String(err))); setStage("error"); }
        return;
      }
      if (!alive) return;
      if (await ocrAvailable()) read(); else offerDownload();
    })();
    const off = onModelsChange((group, p) => {
      if (group === OCR_GROUP && p) setDownload((d) => (d ? { ...d, loaded: p.loaded, bytes: p.total } : d));
    });
    return () => { alive = false; off(); abort.current.abort(); };
  }, []);

  const startDownload = async () => {
    setDownload((d) => ({ ...d, running: true, failed: false }));
    try {
      await downloadModel(OCR_GROUP);
    } catch {
      setDownload((d) => ({ ...d, running: false, failed: true }));
      return;
    }
    stopOcr(); // the worker checked the files before they were here
    read();
  };

  const cancel = () => {
    abort.current.abort();
    onDone(stage === "error" ? { error } : null);
  };
  const attach = async () => {
    const plan = view.plan;
    const sendImage = choice === "image";
    onDone({ choice, png: sendImage ? await view.masked.arrayBuffer() : null, ocrText: plan.ocr_text,
      masked: plan.masked, hasText: plan.has_text });
  };

  const name = file.name || "image";
  const canAttach = stage === "review" && (view.plan.has_text ? Boolean(choice) : consent);
  const footer = html`
    <button type="button" class="button" data-action="image-remove" onClick=${cancel}>${stage === "reading"
      ? t("image.cancel") : t("image.remove")}</button>
    ${stage === "review" ? html`<button type="button" class="button primary" data-action="image-attach"
      disabled=${!canAttach} onClick=${attach}>${t("image.attach")}</button>` : null}`;

  return html`<${Dialog} title=${t(scan ? "image.scanTitle" : "image.title", { name })} onClose=${cancel} footer=${footer} className="image-review">
    <div data-testid="image-review" data-stage=${stage}>
      ${scan ? null : html`<p class="help">${t("image.intro")}</p>`}
      ${stage === "download" && download ? html`<div data-testid="image-download">
        <p>${t("image.needOcr", { size: formatBytes(download.bytes) })}</p>
        ${download.running ? html`<progress max=${download.bytes || 1} value=${download.loaded}
            aria-label=${t("models.ocr")}></progress>
          <p class="small muted">${t("image.downloading", { loaded: formatBytes(download.loaded), total: formatBytes(download.bytes) })}</p>`
          : html`<button type="button" class="button primary" data-action="image-download" onClick=${startDownload}>
            ${t("image.download", { size: formatBytes(Math.max(0, download.bytes - download.loaded) || download.bytes) })}</button>`}
        ${download.failed ? html`<p class="field-error" role="alert">${t("image.downloadFailed")}</p>` : null}
      </div>` : null}
      ${stage === "reading" || stage === "start" ? html`<div data-testid="image-progress">
        <p>${t("image.reading")}</p>
        <progress max="100" value=${progress.percent} aria-label=${t("image.progressOf", { name })}></progress>
        <p class="small muted" data-testid="image-stage" data-ocr-stage=${progress.stage}>${t(`image.stage.${progress.stage}`)}${
          progress.pages > 1 ? ` · ${t("image.scanPage", { page: progress.page, pages: progress.pages })}` : ""}</p>
      </div>` : null}
      ${stage === "error" ? html`<p class="field-error" role="alert" data-testid="image-error"
          data-kind=${error?.kind || "failed"}>${error?.kind === "undecodable" ? t("image.error.undecodable")
          : error?.kind === "mask" ? t("image.error.mask", { message: error.message })
          : error?.kind === "scan_empty" ? t("image.error.scanEmpty")
          : t("image.error.failed", { message: error?.message || "" })}</p>` : null}
      ${scan && stage !== "review" ? html`<p data-testid="scan-intro">${t("image.scanIntro", { n: scan.pages.length,
        total: scan.total })}${scan.unread.length ? ` ${t("image.scanUnread", { pages: scan.unread.join(", ") })}` : ""}</p>` : null}
      ${stage === "review" && view.scan ? html`<${ScanText} view=${view} />` : null}
      ${stage === "review" && !view.scan ? html`<${Review} view=${view} name=${name} choice=${choice} setChoice=${setChoice}
        consent=${consent} setConsent=${setConsent} />` : null}
    </div>
  <//>`;
}

function ScanText({ view }) {
  const { plan, scan } = view;
  const values = distinctMasked(plan.masked);
  return html`
    <p data-testid="scan-read">${t("image.scanRead", { n: scan.pages.length })}${scan.unread.length
      ? ` ${t("image.scanUnread", { pages: scan.unread.join(", ") })}` : ""}</p>
    <p>${values.length ? t("image.scanMaskedCount", { n: values.length }) : t("image.maskedNone")}</p>
    <details class="image-text" open>
      <summary>${t("image.textPreview")}</summary>
      <pre class="wire-text" data-testid="image-text">${segmentsOf(plan.ocr_text, plan.masked).map((s, i) => (s.kind
        ? html`<mark key=${i} class="redacted">${s.text}</mark>` : s.text))}</pre>
    </details>`;
}

function Review({ view, name, choice, setChoice, consent, setConsent }) {
  const { plan } = view;
  const values = distinctMasked(plan.masked);
  return html`
    <figure class="image-preview">
      <img src=${view.url} alt=${t("image.previewAlt", { name, n: plan.boxes.length })} data-testid="masked-image"
        data-boxes=${plan.boxes.length} />
      <figcaption class="small muted">${t("image.preview")}${view.scaled ? ` · ${t("image.scaled")}` : ""}</figcaption>
    </figure>
    ${plan.has_text ? html`
      <p>${values.length ? t("image.maskedCount", { n: values.length }) : t("image.maskedNone")}</p>
      ${values.length ? html`<ul class="image-masked" data-testid="image-masked">
        ${values.map((m, i) => html`<li key=${i} data-kind=${m.kind}><span class="redacted">${m.value}</span>
          <span class="small muted"> (${kindLabel(m.kind)})${m.fake ? ` → ${m.fake}` : ""}${m.count > 1 ? ` ×${m.count}` : ""}</span></li>`)}
      </ul>` : null}
      <fieldset class="image-choice">
        <legend>${t("image.choice")}</legend>
        <label><input type="radio" name="image-choice" value="image" checked=${choice === "image"}
          onChange=${() => setChoice("image")} data-testid="choice-image" />
          ${t("image.choiceImage")}<span class="help">${t("image.choiceImageHelp")}</span></label>
        <label><input type="radio" name="image-choice" value="text" checked=${choice === "text"}
          onChange=${() => setChoice("text")} data-testid="choice-text" />
          ${t("image.choiceText")}<span class="help">${t("image.choiceTextHelp")}</span></label>
      </fieldset>
      ${choice === "text" ? html`<details class="image-text" open>
        <summary>${t("image.textPreview")}</summary>
        <pre class="wire-text" data-testid="image-text">${segmentsOf(plan.ocr_text, plan.masked).map((s, i) => (s.kind
          ? html`<mark key=${i} class="redacted">${s.text}</mark>` : s.text))}</pre>
      </details>` : null}`
    : html`<p class="field-error" role="alert" data-testid="image-no-text">${t("image.noText")}</p>
      <label class="image-consent"><input type="checkbox" checked=${consent} data-testid="image-consent"
        onChange=${(e) => setConsent(e.currentTarget.checked)} /> ${t("image.consent")}</label>`}`;
}
