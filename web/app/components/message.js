// One chat message: the user's text with its redacted spans highlighted by kind, the reply as
// sanitised markdown, the "what the model saw" view, the memory caption, and the message actions.
import { html, useRef, useState } from "../lib.js";
import { t, hasKey, formatTime, errorKey } from "../i18n.js";
import { familyOf, kindLabel, skipReasonLabel } from "../labels.js";
import { Icon } from "./icons.js";
import { useToast } from "./ui.js";
import { ReplyBody, isRendered } from "./reply.js";
import { SentAttachments, SentAttachmentWire } from "./attachments.js";

// A kind's label and colour family come from the generated contract (labels.js); re-exported for the
// modules that import them from here.
export { familyOf, kindLabel } from "../labels.js";

/** Splits `text` at the spans (sorted, non-overlapping, in UTF-16 offsets as JS strings count). */
export function segments(text, spans) {
  const out = [];
  let at = 0;
  const sorted = [...(spans || [])].sort((a, b) => a.start - b.start);
  for (const span of sorted) {
    if (span.start < at || span.end > text.length || span.end <= span.start) continue;
    if (span.start > at) out.push({ text: text.slice(at, span.start) });
    out.push({ text: text.slice(span.start, span.end), kind: span.kind });
    at = span.end;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}

export function SpanText({ text, spans }) {
  return html`<div class="user-text">${segments(text || "", spans).map((seg, i) => (seg.kind
    ? html`<mark key=${i} class=${`redacted fam-${familyOf(seg.kind)}`} data-kind=${seg.kind}
        title=${t("chat.spanTitle", { kind: kindLabel(seg.kind) })}>${seg.text}</mark>`
    : seg.text))}</div>`;
}


/** The one-line memory caption under a reply; null when there is nothing to say. */
export function captionParts(caption, memoryOff) {
  if (!caption) return [];
  const parts = [];
  if (caption.pending) parts.push({ text: t("caption.pending"), tone: "pending" });
  const used = caption.memory_used || [];
  const cards = used.filter((id) => id !== "profile");
  if (cards.length) {
    parts.push({ text: t("caption.used", { n: cards.length }) + (used.includes("profile") ? ` + ${t("caption.profile")}` : "") });
  } else if (used.includes("profile")) {
    parts.push({ text: t("caption.usedProfile") });
  }
  const skipped = caption.skipped || [];
  if (skipped.length) {
    const reasons = [...new Set(skipped.map((s) => s.reason))]
      .map(skipReasonLabel).join(", ");
    parts.push({ text: `${t("caption.skipped", { n: skipped.length })} (${reasons})` });
  }
  // noted_count is null unless an explicit ask's extraction reported on this reply (0: "nothing new
  // to remember"); an empty `noted` list is no report (an empty array is truthy in JS).
  const noted = caption.noted_count;
  // A failed run noted nothing: it says so once ("failed"), not also "nothing new to remember".
  if (typeof noted === "number" && !caption.pending && !caption.failed) {
    parts.push({ text: t("caption.noted", { n: noted }) });
  }
  if ((caption.updated || []).length) parts.push({ text: t("caption.updated", { n: caption.updated.length }) });
  if (caption.failed) parts.push({ text: t("caption.failed"), tone: "failed" });
  if (!parts.length && memoryOff) return [];
  return parts;
}

export function Caption({ caption, memoryOff }) {
  const parts = captionParts(caption, memoryOff);
  if (!parts.length) return null;
  return html`<p class="caption" data-testid="memory-caption">
    <${Icon} name="shield" size=${14} />
    ${parts.map((p, i) => html`<span key=${i} class=${p.tone ? `caption-${p.tone}` : ""}>${i ? " · " : ""}${p.text}</span>`)}
  </p>`;
}

/** One whole provider request as it left (fakes only): system text with the memory block, every
 *  message of the history and of this turn, tool calls, and the tool definitions. */
export function RequestView({ request }) {
  if (!request) return null;
  return html`<div class="request-view" data-testid="request-view">
    ${request.system ? html`<p class="small muted">${t("wirelog.system")}</p><pre class="wire-text">${request.system}</pre>` : null}
    ${(request.messages || []).map((m, i) => html`${(m.parts || []).map((part, j) => html`<pre key=${`${i}-${j}`}
        class="wire-text" tabindex="0" data-wire-role=${m.role} data-wire-part="attachment">${m.role}: ${part}</pre>`)}<pre key=${i}
        class="wire-text" data-wire-role=${m.role}>${m.role}: ${m.content}${
      (m.tool_calls || []).map((c) => `\n→ ${c.name}(${c.arguments})`).join("")}</pre>`)}
    ${(request.tools || []).length ? html`<p class="small muted">${t("wirelog.tools")}</p>
      <pre class="wire-text tool">${JSON.stringify(request.tools, null, 2)}</pre>` : null}
  </div>`;
}

function WireView({ message }) {
  const tools = message.tools || [];
  const user = message.role === "user";
  return html`<div class="wire" data-testid="wire">
    <p class="wire-hint small muted">${user ? t("chat.wireHint") : t("chat.wireReply")}</p>
    ${user ? html`<${SentAttachmentWire} attachments=${message.attachments} />` : null}
    ${message.wire ? html`<pre class="wire-text">${message.wire}</pre>`
      : message.pendingRequest || (message.attachments || []).some((a) => a.wire) ? null
      : html`<p class="muted">${t("chat.wireNone")}</p>`}
    ${message.pendingRequest ? html`<div data-testid="wire-pending"><p class="small muted">${t("chat.wirePending")}</p>
      <${RequestView} request=${message.pendingRequest.request} /></div>` : null}
    ${tools.map((tool, i) => html`<pre key=${i} class="wire-text tool">${tool.name}(${tool.wire_arguments ?? ""})${
      tool.wire_result ? `\n→ ${tool.wire_result}` : ""}</pre>`)}
  </div>`;
}

export async function copyText(text) {
  if (navigator.clipboard?.writeText) {
    try { await navigator.clipboard.writeText(text); return true; } catch { /* fall through */ }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.append(area);
  area.select();
  let ok;
  try { ok = document.execCommand("copy"); } catch { ok = false; }
  area.remove();
  return ok;
}

/** What a rendered reply says, as plain text (its paragraphs, lists and code, without the controls the
 *  page adds to it): laid out off screen so line breaks are those of the page. */
function renderedText(article) {
  const body = article?.querySelector(".markdown");
  if (!body) return null;
  const copy = body.cloneNode(true);
  copy.querySelectorAll("button, .code-head, [aria-hidden='true']").forEach((el) => el.remove());
  copy.className = "markdown offscreen";
  document.body.append(copy);
  const text = copy.innerText;
  copy.remove();
  return text.replace(/\n{3,}/g, "\n\n").trim();
}

/** A reply stopped by the user: a state, not an error. */
export const wasStopped = (message) => message.error === "aborted";

export function ErrorNote({ error, onRetry }) {
  if (!error) return null;
  const key = errorKey(error);
  const text = hasKey(key) ? t(key) : t("error.unknown");
  // The detail: the provider's own words when it said something (our sentence above already says
  // what happened, in the user's language), else the worker's (English): they name what to fix.
  const detail = error.provider_message || error.message || "";
  return html`<div class="inline-error" role="alert" data-error-kind=${error.kind}>
    <${Icon} name="warn" size=${18} />
    <div class="inline-error-text">
      <p>${text}${error.retry_after ? ` ${t("error.rateLimitRetry", { s: Math.ceil(error.retry_after) })}` : ""}</p>
      ${detail ? html`<p class="small muted">${t("error.detail", { detail })}</p>` : null}
    </div>
    ${onRetry ? html`<button type="button" class="button small" onClick=${onRetry}>
      <${Icon} name="retry" size=${16} />${t("common.retry")}</button>` : null}
  </div>`;
}

/** previous / "n/m" / next over the versions made at this message's place (issue 18). */
function VersionSwitch({ version, onSwitch, disabled }) {
  if (!version || version.count < 2) return null;
  const label = t("chat.versionOf", { n: version.number, count: version.count });
  return html`<div class="versions" role="group" aria-label=${t("chat.versions")} data-testid="versions">
    <button type="button" class="icon-button small" disabled=${disabled || !version.previous}
      onClick=${() => onSwitch(-1)} aria-label=${t("chat.versionPrevious")} data-action="version-previous">
      <${Icon} name="chevronBack" size=${16} /></button>
    <span class="version-number" aria-hidden="true" data-testid="version">${version.number}/${version.count}</span>
    <span class="visually-hidden">${label}</span>
    <button type="button" class="icon-button small" disabled=${disabled || !version.next}
      onClick=${() => onSwitch(1)} aria-label=${t("chat.versionNext")} data-action="version-next">
      <${Icon} name="chevron" size=${16} /></button>
  </div>`;
}

/** The text of a sent message, changed in place; sending it makes a new version of the turn. */
function EditBox({ message, onSend, onCancel }) {
  const [text, setText] = useState(message.text || "");
  const id = `edit-${message.id}`;
  const submit = (e) => {
    e.preventDefault();
    if (text.trim()) onSend(text.trim());
  };
  const onKeyDown = (e) => {
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); onCancel(); }
  };
  return html`<form class="edit-box" onSubmit=${submit} data-testid="edit-box">
    <label for=${id} class="visually-hidden">${t("chat.editLabel")}</label>
    <textarea id=${id} rows="3" value=${text} autocomplete="off" onInput=${(e) => setText(e.currentTarget.value)}
      onKeyDown=${onKeyDown} ref=${(el) => el && !el.dataset.focused && (el.dataset.focused = "1", el.focus())}></textarea>
    <p class="help small muted">${t("chat.editHelp")}</p>
    <div class="row end">
      <button type="button" class="button" onClick=${onCancel}>${t("common.cancel")}</button>
      <button type="submit" class="button primary" disabled=${!text.trim()} data-action="edit-send">
        <${Icon} name="send" size=${16} />${t("chat.editSend")}</button>
    </div>
  </form>`;
}

export function Message({ message, streaming, onRetry, memoryOff, error, api, convId, onEdit, onRegenerate, onSwitch,
  busy: turnBusy, footer = null }) {
  const [showWire, setShowWire] = useState(false);
  const [editing, setEditing] = useState(false);
  const article = useRef(null);
  // A reply's body shows only once its text nodes are restored: busy from the first render on.
  const [restoring, setRestoring] = useState(() => !isRendered(convId, message.wire));
  const toast = useToast();
  const user = message.role === "user";
  const spans = message.spans || [];
  const copyWith = (text, done = "common.copied") => async () =>
    toast((await copyText(text ?? message.text ?? "")) ? t(done) : t("chat.copyFailed"));
  const stopped = wasStopped(message);
  const hasText = Boolean((message.text || "").trim());
  const wireId = `wire-${message.id}`;
  const canWire = !streaming && (user || message.wire || message.pendingRequest);
  const hasBody = user || streaming || Boolean(message.text);
  const busy = streaming || (!user && hasBody && restoring);
  const failure = streaming || stopped ? null : error || (message.error ? { kind: message.error } : null);
  const regenerate = !user && onRegenerate && !turnBusy ? () => onRegenerate(message) : null;
  const canEdit = user && onEdit && !turnBusy && !message.draft && !streaming;
  return html`<article class=${`message ${user ? "from-user" : "from-assistant"} ${streaming ? "streaming" : ""}`}
      ref=${article} data-role=${message.role} data-message-id=${message.id} aria-busy=${busy ? "true" : undefined}
      data-state=${stopped ? "stopped" : undefined}>
    <header class="message-head">
      <span class="who">${user ? t("chat.you") : t("chat.assistant")}</span>
      ${!user && message.model ? html`<span class="reply-model muted small" data-testid="reply-model"
          title=${t("model.reply", { model: message.model })}>${message.model}</span>` : null}
      ${message.created ? html`<time class="muted small">${formatTime(message.created)}</time>` : null}
      ${user && spans.length ? html`<span class="badge shield-badge">${t("chat.redactedCount", { n: spans.length })}</span>` : null}
      ${message.draft ? html`<span class="badge warn">${t("chat.draftKept")}</span>` : null}
    </header>
    ${editing ? html`<${EditBox} message=${message} onCancel=${() => setEditing(false)}
        onSend=${(text) => { setEditing(false); onEdit(message, text); }} />`
    : !hasBody ? null : html`<div class="bubble">
      ${user ? html`<${SentAttachments} attachments=${message.attachments} /><${SpanText} text=${message.text} spans=${spans} />`
        : html`<${ReplyBody} api=${api} convId=${convId} wire=${message.wire ?? null} text=${message.text}
          onBusy=${setRestoring} />`}
      ${streaming ? html`<span class="cursor" aria-hidden="true"></span>` : null}
    </div>`}
    ${stopped ? html`<p class="badge stopped" data-testid="stopped">${t("chat.stopped")}</p>`
      : message.interrupted ? html`<p class="badge warn">${t("chat.interrupted")}</p>` : null}
    ${!user ? html`<${Caption} caption=${message.caption} memoryOff=${memoryOff} />` : null}
    ${streaming ? null : footer}
    ${failure ? html`<${ErrorNote} error=${failure} onRetry=${regenerate || onRetry} />` : null}
    ${streaming || editing ? null : html`<div class="message-actions">
      <${VersionSwitch} version=${message.version} disabled=${turnBusy} onSwitch=${(delta) => onSwitch?.(message, delta)} />
      ${hasText && user ? html`<button type="button" class="chip" onClick=${copyWith(message.text)} data-action="copy">
          <${Icon} name="copy" size=${16} />${t("common.copy")}</button>` : null}
      ${hasText && !user ? html`<button type="button" class="chip" data-action="copy"
          onClick=${() => copyWith(renderedText(article.current))()}>
          <${Icon} name="copy" size=${16} />${t("chat.copyText")}</button>
        <button type="button" class="chip" onClick=${copyWith(message.text, "chat.copiedMarkdown")} data-action="copy-markdown">
          <${Icon} name="copy" size=${16} />${t("chat.copyMarkdown")}</button>` : null}
      ${canEdit ? html`<button type="button" class="chip" onClick=${() => setEditing(true)} data-action="edit">
          <${Icon} name="pencil" size=${16} />${t("common.edit")}</button>` : null}
      ${canWire ? html`<button type="button" class="chip" aria-expanded=${showWire ? "true" : "false"} aria-controls=${wireId}
          onClick=${() => setShowWire(!showWire)} data-action="wire">
          <${Icon} name="eye" size=${16} />${showWire ? t("chat.wireHide") : t("chat.wire")}</button>` : null}
      ${regenerate && !failure ? html`<button type="button" class="chip" onClick=${regenerate} data-action="regenerate">
          <${Icon} name="retry" size=${16} />${t("chat.regenerate")}</button>` : null}
      ${onRetry && !failure && user && message.draft ? html`<button type="button" class="chip" onClick=${onRetry}
          data-action="retry"><${Icon} name="retry" size=${16} />${t("common.retry")}</button>` : null}
    </div>`}
    ${showWire ? html`<div id=${wireId}><${WireView} message=${message} /></div>` : null}
  </article>`;
}
