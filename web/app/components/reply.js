// A model's reply on screen (issue 17, "restore only where text is shown"): the markdown the model wrote,
// with its fakes, is rendered and sanitised; then only its text nodes get the real values back, from
// py-worker's restore (the engine's one restore). Link targets, image sources and every other attribute
// keep what the model wrote. A link asks before it opens and shows its exact target; the real target is
// offered only when the link leads to an address of the user's own (docs/web.md, "Replies and links").
import { html, useEffect, useLayoutEffect, useRef, useState } from "../lib.js";
import { t } from "../i18n.js";
import { renderMarkdown, renderRestoredOnly, MODEL_LINK } from "../markdown.js";
import { enhanceReply, codeToCopy, copyText } from "../rich.js";
import { Dialog, useToast } from "./ui.js";

// Restored texts kept per reply: a streaming reply re-renders often and its earlier nodes do not change.
const CACHE_MAX = 20_000;
// The last bodies rendered and restored, by conversation and model text: the saved copy of a reply that
// just finished streaming shows at once what its streaming copy showed (a 1 MB reply is not redone).
// Kept as nodes and cloned: typeset math carries inline styles set through the CSSOM, which markup
// re-parsed from innerHTML would lose to the CSP.
const RENDERED = new Map();
const RENDERED_MAX = 8;
const renderedKey = (convId, wire) => `${convId}\u0000${wire}`;

/** Whether the body of this reply is already rendered and restored (it can show at once). */
export function isRendered(convId, wire) {
  return wire != null && RENDERED.has(renderedKey(convId, wire));
}

function keepRendered(convId, wire, body) {
  RENDERED.delete(renderedKey(convId, wire));
  RENDERED.set(renderedKey(convId, wire), body.cloneNode(true));
  while (RENDERED.size > RENDERED_MAX) RENDERED.delete(RENDERED.keys().next().value);
}

/** The text nodes of `root`, in document order. */
function textNodes(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) out.push(node);
  return out;
}

/** Sets each text node's value to its restored form; asks the worker only for texts not seen yet. */
async function restoreTextNodes(api, convId, root, cache) {
  const nodes = textNodes(root);
  const missing = [...new Set(nodes.map((n) => n.nodeValue).filter((v) => v.trim() && !cache.has(v)))];
  if (missing.length) {
    const restored = await api.restoreTexts(convId, missing);
    if (cache.size + missing.length > CACHE_MAX) cache.clear();
    missing.forEach((value, i) => cache.set(value, restored[i]));
  }
  for (const node of nodes) if (cache.has(node.nodeValue)) node.nodeValue = cache.get(node.nodeValue);
}

/** Where a link leads, the part that names the destination: a host, an e-mail address, a number. */
export function destinationOf(href) {
  try {
    const url = new URL(href, document.baseURI);
    if (url.protocol === "http:" || url.protocol === "https:") return url.hostname;
    if (url.protocol === "mailto:" || url.protocol === "tel:") return decodeURIComponent(url.pathname);
    return "";
  } catch {
    return "";
  }
}

/** The reply's body. `wire`: the reply as the model wrote it (null for a reply saved before it was kept:
 *  then the restored `text` is shown without link targets or images). `onBusy(true|false)`: the shown
 *  body is behind the latest text while its restore runs. */
export function ReplyBody({ api, convId, wire, text, onBusy }) {
  const ref = useRef(null);
  const cache = useRef(new Map());
  const job = useRef({ running: false, next: null });
  const [link, setLink] = useState(null);
  const toast = useToast();

  useLayoutEffect(() => {
    if (isRendered(convId, wire)) {
      ref.current.replaceChildren(...RENDERED.get(renderedKey(convId, wire)).cloneNode(true).childNodes);
      onBusy?.(false);
      return;
    }
    job.current.next = { wire, text };
    if (!job.current.running) run();
  }, [convId, wire, text]);

  async function run() {
    const state = job.current;
    state.running = true;
    onBusy?.(true);
    try {
      while (state.next) {
        const { wire: source, text: shown } = state.next;
        state.next = null;
        const box = document.createElement("div");
        if (source == null) {
          box.innerHTML = renderRestoredOnly(shown);
          await enhanceReply(box);
        } else {
          box.innerHTML = renderMarkdown(source);
          try {
            await restoreTextNodes(api, convId, box, cache.current);
            // Code and math from the restored text (rich.js); a newer streamed text cuts it short.
            if (await enhanceReply(box, () => state.next !== null)) keepRendered(convId, source, box);
          } catch (err) { // locked, or the conversation went: the saved text, without any target
            console.warn("restore failed", err);
            box.innerHTML = renderRestoredOnly(shown);
            await enhanceReply(box);
          }
        }
        if (ref.current) ref.current.replaceChildren(...box.childNodes);
      }
    } finally {
      state.running = false;
      onBusy?.(false);
    }
  }

  const onClick = (e) => {
    const code = codeToCopy(e.target, ref.current);
    if (code !== null) {
      copyText(code).then((ok) => toast(ok ? t("code.copied") : t("chat.copyFailed")));
      return;
    }
    const anchor = e.target.closest?.(`a[${MODEL_LINK}]`);
    if (!anchor || !ref.current?.contains(anchor)) return;
    e.preventDefault();
    setLink(anchor.getAttribute("href"));
  };
  return html`<div class="markdown" ref=${ref} onClick=${onClick} onAuxClick=${onClick}></div>
    ${link ? html`<${LinkDialog} api=${api} convId=${convId} href=${link} onClose=${() => setLink(null)} />` : null}`;
}

/** Asks before a link the model wrote opens: its exact target, and when it leads to one of the user's
 *  own addresses (its destination is a fake of this conversation), the real one after a second click. */
function LinkDialog({ api, convId, href, onClose }) {
  const [real, setReal] = useState(null); // {href, own}
  useEffect(() => {
    // The destination is the user's own when restoring the target changes where it leads (its host, its
    // address, its number), whether the engine faked that part alone or the whole URL around it.
    const destination = destinationOf(href);
    api.restoreTexts(convId, [href])
      .then(([full]) => setReal({ href: full, own: Boolean(destination) && destinationOf(full) !== destination,
        masked: full !== href }))
      .catch(() => setReal({ href, own: false, masked: false }));
  }, [href]);
  const open = (target) => { window.open(target, "_blank", "noopener,noreferrer"); onClose(); };
  return html`<${Dialog} title=${t("link.title")} onClose=${onClose} className="link-dialog" footer=${html`
      <button type="button" class="button" onClick=${onClose}>${t("common.cancel")}</button>
      ${real?.own ? html`<button type="button" class="button" onClick=${() => open(real.href)}
          data-action="open-real-link">${t("link.openReal")}</button>` : null}
      <button type="button" class="button primary" onClick=${() => open(href)} data-action="open-link">
        ${t("link.open")}</button>`}>
    <p data-testid="link-dialog-state" data-state=${real ? "checked" : "checking"}>${t("link.body")}</p>
    <p><code class="link-target" data-testid="link-target">${href}</code></p>
    ${real?.own ? html`<p>${t("link.own")}</p>
        <p><code class="link-target" data-testid="link-real-target">${real.href}</code></p>`
      : real?.masked ? html`<p class="muted small">${t("link.masked")}</p>` : null}
  <//>`;
}
