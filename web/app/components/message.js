// One chat message: the user's text with its redacted spans highlighted by kind, the reply as
// sanitised markdown, the "what the model saw" view, the memory caption, and the message actions.
import { html, useState } from "../lib.js";
import { t, hasKey, formatTime } from "../i18n.js";
import { Icon } from "./icons.js";
import { useToast } from "./ui.js";
import { ReplyBody, isRendered } from "./reply.js";

// Colour families for the fine kinds the engine reports (py/openmasq/redact/kinds.py); unknown kinds
// fall in "secret", as the engine itself treats them.
const FAMILY = {
  person: "person", username: "person",
  org: "org", siren: "org", siret: "org", vat: "org",
  email: "contact", phone: "contact",
  address: "place", location: "place",
  iban: "money", bic: "money", card: "money", amount: "money", number: "money",
  nir: "id", dni: "id", nie: "id", nino: "id", ssn: "id", dob: "id", date: "id",
  url: "tech", domain: "tech", ipv4: "tech", ipv6: "tech", mac: "tech", path: "tech",
  apikey: "secret", jwt: "secret", private_key: "secret", password: "secret", token: "secret",
};

export const familyOf = (kind) => FAMILY[kind] || "secret";
export const kindLabel = (kind) => (hasKey(`kind.${kind}`) ? t(`kind.${kind}`) : t("kind.other"));

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
      .map((r) => (hasKey(`caption.skip.${r}`) ? t(`caption.skip.${r}`) : r)).join(", ");
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
    ${(request.messages || []).map((m, i) => html`<pre key=${i} class="wire-text" data-wire-role=${m.role}>${m.role}: ${m.content}${
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
    ${message.wire ? html`<pre class="wire-text">${message.wire}</pre>` : message.pendingRequest ? null
      : html`<p class="muted">${t("chat.wireNone")}</p>`}
    ${message.pendingRequest ? html`<div data-testid="wire-pending"><p class="small muted">${t("chat.wirePending")}</p>
      <${RequestView} request=${message.pendingRequest.request} /></div>` : null}
    ${tools.map((tool, i) => html`<pre key=${i} class="wire-text tool">${tool.name}(${tool.wire_arguments ?? ""})${
      tool.wire_result ? `\n→ ${tool.wire_result}` : ""}</pre>`)}
  </div>`;
}

async function copyText(text) {
  if (navigator.clipboard?.writeText) {
    try { await navigator.clipboard.writeText(text); return true; } catch { /* fall through */ }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.append(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch { ok = false; }
  area.remove();
  return ok;
}

export function ErrorNote({ error, onRetry }) {
  if (!error) return null;
  const key = `error.${error.kind}`;
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

export function Message({ message, streaming, onRetry, memoryOff, error, api, convId }) {
  const [showWire, setShowWire] = useState(false);
  // A reply's body shows only once its text nodes are restored: busy from the first render on.
  const [restoring, setRestoring] = useState(() => !isRendered(convId, message.wire));
  const toast = useToast();
  const user = message.role === "user";
  const spans = message.spans || [];
  const copy = async () => toast((await copyText(message.text || "")) ? t("common.copied") : t("chat.copyFailed"));
  const wireId = `wire-${message.id}`;
  const canWire = !streaming && (user || message.wire || message.pendingRequest);
  const hasBody = user || streaming || Boolean(message.text);
  const busy = streaming || (!user && hasBody && restoring);
  const failure = streaming ? null : error || (message.error ? { kind: message.error } : null);
  return html`<article class=${`message ${user ? "from-user" : "from-assistant"} ${streaming ? "streaming" : ""}`}
      data-role=${message.role} data-message-id=${message.id} aria-busy=${busy ? "true" : undefined}>
    <header class="message-head">
      <span class="who">${user ? t("chat.you") : t("chat.assistant")}</span>
      ${message.created ? html`<time class="muted small">${formatTime(message.created)}</time>` : null}
      ${user && spans.length ? html`<span class="badge shield-badge">${t("chat.redactedCount", { n: spans.length })}</span>` : null}
      ${message.draft ? html`<span class="badge warn">${t("chat.draftKept")}</span>` : null}
    </header>
    ${!hasBody ? null : html`<div class="bubble">
      ${user ? html`<${SpanText} text=${message.text} spans=${spans} />` : html`<${ReplyBody} api=${api} convId=${convId}
          wire=${message.wire ?? null} text=${message.text} onBusy=${setRestoring} />`}
      ${streaming ? html`<span class="cursor" aria-hidden="true"></span>` : null}
    </div>`}
    ${message.interrupted ? html`<p class="badge warn">${t("chat.interrupted")}</p>` : null}
    ${!user ? html`<${Caption} caption=${message.caption} memoryOff=${memoryOff} />` : null}
    ${failure ? html`<${ErrorNote} error=${failure} onRetry=${onRetry} />` : null}
    ${streaming ? null : html`<div class="message-actions">
      <button type="button" class="chip" onClick=${copy}><${Icon} name="copy" size=${16} />${t("common.copy")}</button>
      ${canWire ? html`<button type="button" class="chip" aria-expanded=${showWire ? "true" : "false"} aria-controls=${wireId}
          onClick=${() => setShowWire(!showWire)} data-action="wire">
          <${Icon} name="eye" size=${16} />${showWire ? t("chat.wireHide") : t("chat.wire")}</button>` : null}
      ${onRetry && !failure && (!user || message.draft) ? html`<button type="button" class="chip" onClick=${onRetry} data-action="retry">
          <${Icon} name="retry" size=${16} />${t("common.retry")}</button>` : null}
    </div>`}
    ${showWire ? html`<div id=${wireId}><${WireView} message=${message} /></div>` : null}
  </article>`;
}
