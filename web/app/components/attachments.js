// Files attached in the composer (issue 20): by the clip button, by dropping them on the composer, by
// pasting them. Each is checked against the limits py-worker gives (attach/limits.py, said before any
// upload), then read ON THE DEVICE by py-worker (openmasq.attach), with its progress and a cancel; nothing
// of it is stored or sent until the message is. The composer shows each file as a chip with what the
// preview masks in it; a sent turn shows its files as chips too.
//
// The composer's state, one item per file (docs/web.md, "Attachments"):
//   {key, name, size, type, kind: "document"|"image", status: "reading"|"ready"|"error",
//    progress: {done, total}|null, view: py-worker's staged view|null, error: {reason, message}|null}
import { html, useEffect, useRef, useState, useCallback, Comlink } from "../lib.js";
import { t, hasKey } from "../i18n.js";
import { Icon } from "./icons.js";
import { familyOf, kindLabel } from "./message.js";
import { stageReviewedImage, stageScannedPdf } from "./image-review.js";

const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp|bmp|tiff?|heic|heif|avif)$/i;
// What the file picker offers (every format openmasq.attach reads; anything else dropped is read
// for what its bytes are, and refused with a reason when it is none of them).
export const ACCEPT = [".txt", ".md", ".markdown", ".csv", ".tsv", ".json", ".jsonl", ".eml", ".pdf", ".docx",
  ".odt", ".xlsx", ".ods", ".pptx", ".log", ".py", ".js", ".ts", ".java", ".c", ".cpp", ".h", ".cs", ".go", ".rs",
  ".rb", ".php", ".sh", ".sql", ".html", ".css", ".xml", ".yaml", ".yml", ".toml", ".ini", "text/*",
  // images: read by on-device OCR and masked before they can go (components/image-review.js)
  ".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", "image/*"].join(",");

export const isImage = (file) => (file.type || "").startsWith("image/") || IMAGE_EXTENSIONS.test(file.name || "");

/** The key a file is staged under in py-worker (drawn here, so a read can be cancelled before it answers). */
const newKey = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`);

export function formatSize(bytes) {
  if (bytes < 1024) return t("attach.bytes", { n: bytes });
  if (bytes < 1024 * 1024) return t("attach.kb", { n: Math.max(1, Math.round(bytes / 1024)) });
  return t("attach.mb", { n: (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "") });
}

/** A refusal from py-worker ("AttachmentRefused", its reason and message in the message as JSON). */
export function refusalOf(err) {
  if (err?.name === "AttachmentRefused") {
    try { return JSON.parse(err.message); } catch { return { reason: "corrupt", message: err.message }; }
  }
  return { reason: "failed", message: err?.message || String(err) };
}

/** What a refusal says to the user, in their language (the reader's own words as the detail). */
export function refusalText(error) {
  const key = `attach.reason.${error.reason}`;
  return hasKey(key) ? t(key) : t("attach.reason.failed", { message: error.message });
}

/** The seam for images (issue 20, item 2): the image's words read on the device, the user sees the masked
 *  image and chooses what goes (components/image-review.js), then it is staged in py-worker (its OCR text,
 *  its masked PNG); resolves to the staged view, calling onProgress({done, total}). */
export async function stageImage(api, file, key, onProgress, conversationId = null) {
  return stageReviewedImage(api, file, key, onProgress, conversationId);
}

/** The composer's files: add (checked against the limits first), remove (a read in progress is
 *  cancelled, a staged file dropped in py-worker), and the list as it stands. */
export function useAttachments(api, draftKey) {
  const [items, setItems] = useState(() => attachmentDrafts.get(draftKey) || []);
  const [limits, setLimits] = useState(null);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  useEffect(() => { api.attachmentLimits().then(setLimits).catch(() => {}); }, [api]);
  useEffect(() => { setItems(attachmentDrafts.get(draftKey) || []); }, [draftKey]);
  useEffect(() => {
    // A send that saved nothing gives its files back (attachmentDrafts, set by the chat screen).
    const sync = () => {
      const back = attachmentDrafts.get(draftKey);
      if (back && back !== itemsRef.current) setItems(back);
    };
    addEventListener("openmasq-attachments", sync);
    return () => removeEventListener("openmasq-attachments", sync);
  }, [draftKey]);
  const change = useCallback((fn) => {
    setItems((now) => {
      const next = fn(now);
      itemsRef.current = next;
      if (next.length) attachmentDrafts.set(draftKey, next); else attachmentDrafts.delete(draftKey);
      return next;
    });
  }, [draftKey]);
  const patch = (key, fields) => change((now) => now.map((it) => (it.key === key ? { ...it, ...fields } : it)));

  const read = async (item, file) => {
    const onProgress = (event) => patch(item.key, { progress: { done: event.done, total: event.total } });
    try {
      let view;
      if (item.kind === "image") {
        view = await stageImage(api, file, item.key, onProgress);
      } else {
        const buffer = await file.arrayBuffer();
        view = await api.readAttachment(item.key, file.name, file.type || "", Comlink.transfer(buffer, [buffer]),
          Comlink.proxy(onProgress)).catch((err) => {
          // A scanned PDF: its pages are offered to on-device OCR (components/image-review.js)
          if (refusalOf(err).reason !== "no_text_layer") throw err;
          return stageScannedPdf(api, file, item.key, onProgress);
        });
      }
      if (itemsRef.current.some((it) => it.key === item.key)) patch(item.key, { status: "ready", view, progress: null });
      else api.dropAttachment(item.key).catch(() => {}); // removed while it was read
    } catch (err) {
      const error = refusalOf(err);
      if (error.reason !== "cancelled") patch(item.key, { status: "error", error, progress: null });
    }
  };

  const add = (files) => {
    const list = [...(files || [])];
    if (!list.length) return;
    const now = itemsRef.current.filter((it) => it.status !== "error");
    let bytes = now.reduce((n, it) => n + it.size, 0);
    let count = now.length;
    const fresh = [];
    for (const file of list) {
      const item = { key: newKey(), name: file.name || t("attach.pasted"), size: file.size, type: file.type || "",
        kind: isImage(file) ? "image" : "document", status: "reading", progress: null, view: null, error: null };
      const refused = limits && (
        file.size > limits.max_file_bytes ? "file_too_large"
          : count + 1 > limits.max_files ? "too_many"
            : bytes + file.size > limits.max_message_bytes ? "message_too_large" : null);
      if (refused) {
        fresh.push({ ...item, status: "error", error: { reason: refused, message: "" } });
        continue;
      }
      if (!file.size) {
        fresh.push({ ...item, status: "error", error: { reason: "empty", message: "" } });
        continue;
      }
      bytes += file.size;
      count += 1;
      fresh.push(item);
      read(item, file);
    }
    change((items) => [...items, ...fresh]);
  };

  const remove = (key) => {
    const item = itemsRef.current.find((it) => it.key === key);
    change((now) => now.filter((it) => it.key !== key));
    if (item && item.status !== "error") api.cancelAttachment(key).catch(() => {});
  };
  /** After a send took them: the composer is empty again (py-worker keeps or has forgotten them). */
  const clear = () => change(() => []);
  return { items, limits, add, remove, clear };
}

/** Files a send gave back (it saved nothing) or that wait in a composer not shown, by conversation key. */
export const attachmentDrafts = new Map();

export function giveBack(draftKey, items) {
  attachmentDrafts.set(draftKey, items);
  dispatchEvent(new Event("openmasq-attachments"));
}

/** The limits as one sentence (said next to the clip button, before anything is read). */
export function limitsText(limits) {
  if (!limits) return t("attach.limitsUnknown");
  return t("attach.limits", { files: limits.max_files, file: formatSize(limits.max_file_bytes),
    message: formatSize(limits.max_message_bytes) });
}

/** The limits, said where a conversation starts (before any file is chosen). */
export function LimitsNote({ api }) {
  const [limits, setLimits] = useState(null);
  useEffect(() => { api.attachmentLimits().then(setLimits).catch(() => {}); }, [api]);
  return html`<p class="small muted attach-limits-note" data-testid="attach-limits">${t("attach.how")} ${limitsText(limits)}</p>`;
}

/** The clip button: a hidden file input behind a real button (the input itself is not focusable). */
export function AttachButton({ onFiles, disabled, describedBy, title }) {
  const input = useRef(null);
  return html`<span class="attach-button">
    <input ref=${input} type="file" multiple accept=${ACCEPT} class="visually-hidden" tabindex="-1" aria-hidden="true"
      data-testid="attach-input" onChange=${(e) => { onFiles(e.currentTarget.files); e.currentTarget.value = ""; }} />
    <button type="button" class="icon-button" disabled=${disabled} onClick=${() => input.current?.click()}
      aria-label=${t("attach.add")} title=${title || t("attach.add")} aria-describedby=${describedBy} data-action="attach">
      <${Icon} name="clip" /></button>
  </span>`;
}

/** The composer's chips: each file with its state (reading with progress and a cancel, ready with what
 *  the preview masks in it, refused with why) and a remove button. */
export function AttachmentChips({ items, preview, onRemove, onToggle }) {
  if (!items.length) return null;
  const byKey = new Map((preview?.attachments || []).map((a) => [a.key, a]));
  return html`<ul class="attach-chips" data-testid="attach-chips" aria-label=${t("attach.list")}>
    ${items.map((item) => html`<li key=${item.key} class=${`attach-chip ${item.status}`} data-testid="attach-chip"
        data-status=${item.status} data-name=${item.name}>
      <span class="attach-chip-head">
        <${Icon} name=${item.kind === "image" ? "image" : "file"} size=${16} />
        <span class="attach-name">${item.name}</span>
        <span class="attach-size muted">${formatSize(item.size)}</span>
        <button type="button" class="icon-button small" onClick=${() => onRemove(item.key)}
          aria-label=${t(item.status === "reading" ? "attach.cancel" : "attach.remove", { name: item.name })}
          title=${t(item.status === "reading" ? "attach.cancel" : "attach.remove", { name: item.name })}
          data-action=${item.status === "reading" ? "attach-cancel" : "attach-remove"}><${Icon} name="close" size=${16} /></button>
      </span>
      ${item.status === "reading" ? html`<${Progress} item=${item} />` : null}
      ${item.status === "error" ? html`<span class="attach-error" role="alert" data-testid="attach-error"
          data-reason=${item.error.reason}>${refusalText(item.error)}</span>` : null}
      ${item.status === "ready" ? html`<${Masked} item=${item} found=${byKey.get(item.key)} onToggle=${onToggle} />` : null}
    </li>`)}
  </ul>`;
}

function Progress({ item }) {
  const p = item.progress;
  const label = p && p.total > 1 ? t("attach.readingPages", { done: p.done, total: p.total }) : t("attach.reading");
  return html`<span class="attach-progress" data-testid="attach-progress">
    <progress max=${p ? p.total : 1} value=${p ? p.done : undefined} aria-label=${t("attach.readingOf", { name: item.name })}></progress>
    <span class="small muted">${label}</span>
  </span>`;
}

/** What the preview masks in one file: a count, and on demand each value with its kind and fake (a click
 *  keeps the value in clear in this conversation, as in the typed text's preview). */
function Masked({ item, found, onToggle }) {
  const warnings = item.view?.warnings || [];
  if (!found) return html`<span class="small muted" data-testid="attach-masked" data-state="busy">${t("preview.busy")}</span>`;
  return html`<details class="attach-masked" data-testid="attach-masked" data-state="current">
    <summary>${found.masked.length ? t("attach.maskedCount", { n: found.masked.reduce((n, m) => n + m.count, 0) })
      : t("attach.maskedNone")}${found.name_changed && found.wire_name ? ` · ${t("attach.sentAs", { name: found.wire_name })}` : ""}</summary>
    ${warnings.length ? html`<p class="small muted">${t("attach.partial")}</p>` : null}
    <ul class="attach-masked-list">
      ${found.masked.map((m) => html`<li key=${m.value}>
        <button type="button" class=${`redacted fam-${familyOf(m.kind)}`} data-preview="masked" data-kind=${m.kind}
          title=${m.fake ? t("preview.mask", { kind: kindLabel(m.kind), fake: m.fake }) : kindLabel(m.kind)}
          onClick=${() => onToggle(m.value, false)}>${m.value}</button>
        <span class="small muted">${m.fake ? ` → ${m.fake}` : ` (${kindLabel(m.kind)})`}${m.count > 1 ? ` ×${m.count}` : ""}</span>
      </li>`)}
    </ul>
  </details>`;
}

/** A sent turn's files, as chips under its text. */
export function SentAttachments({ attachments }) {
  if (!attachments?.length) return null;
  return html`<ul class="attach-chips sent" data-testid="sent-attachments" aria-label=${t("attach.list")}>
    ${attachments.map((a, i) => html`<li key=${i} class="attach-chip ready" data-testid="sent-attachment" data-name=${a.name}>
      <span class="attach-chip-head">
        <${Icon} name=${a.kind === "image" ? "image" : "file"} size=${16} />
        <span class="attach-name">${a.name}</span>
        <span class="attach-size muted">${formatSize(a.size)}</span>
      </span>
    </li>`)}
  </ul>`;
}

/** "What the model saw" of a turn's files: each as it was sent, under the name it went under. */
export function SentAttachmentWire({ attachments }) {
  const sent = (attachments || []).filter((a) => a.wire);
  if (!sent.length) return null;
  return html`${sent.map((a, i) => html`<div key=${i} class="attach-wire" data-testid="attachment-wire">
    <p class="small muted">${t("attach.wireLabel", { name: a.wire_name || a.name })}</p>
    ${a.image ? html`<img class="wire-image" src=${`data:image/png;base64,${a.image}`} data-testid="wire-image"
      alt=${t("image.wireAlt", { name: a.wire_name || a.name })} />` : null}
    <pre class="wire-text attach-wire-text" tabindex="0" aria-label=${t("attach.wireLabel", { name: a.wire_name || a.name })}>${a.wire}</pre>
  </div>`)}`;
}

/** Drag and drop on the composer: the files dropped are added; `dragging` says when to show the target. */
export function useDropTarget(onFiles) {
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);
  const hasFiles = (e) => [...(e.dataTransfer?.types || [])].includes("Files");
  return [dragging, {
    onDragEnter: (e) => { if (!hasFiles(e)) return; e.preventDefault(); depth.current += 1; setDragging(true); },
    onDragOver: (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = "copy"; } },
    onDragLeave: () => { depth.current = Math.max(0, depth.current - 1); if (!depth.current) setDragging(false); },
    onDrop: (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current = 0;
      setDragging(false);
      onFiles(e.dataTransfer.files);
    },
  }];
}

/** Paste: files on the clipboard (a copied file, a screenshot) are attached; text pastes as text. */
export function pastedFiles(e) {
  const files = [...(e.clipboardData?.files || [])];
  if (files.length) e.preventDefault();
  return files;
}
