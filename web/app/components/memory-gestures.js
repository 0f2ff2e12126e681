// The chat's memory gestures, mounted once by the shell: « Retenir » / "Remember" on a text selection
// in the messages, and the /retenir and /remember commands typed in the composer. Both run an explicit
// extraction of that text in the worker (redacted first; kept as a note when no model answers).
import { html, useEffect, useRef, useState } from "../lib.js";
import { t } from "../i18n.js";
import { chatState } from "../store.js";
import { errorMessage } from "./ui.js";
import { memoryChanged, useMemoryApi } from "./memory-api.js";
import { LIMITS } from "../contract.js";

const COMMAND = /^\/(retenir|remember)(?:\s+([\s\S]*))?$/i;
const MIN_SELECTION = 3;
const MAX_SELECTION = LIMITS.maxRememberChars; // what the worker's rememberText accepts

export async function rememberAndReport(mem, toast, navigate, text, conversationId, messageId = null) {
  toast(t("memory.remembering"));
  try {
    const result = await mem.rememberText(text, conversationId, messageId);
    memoryChanged();
    const open = { actionLabel: t("nav.memory"), action: () => navigate("memory") };
    if (result.status === "note") toast(t("memory.rememberedNote"), open);
    else if (result.created.length || result.updated.length || result.profile) {
      toast(t("memory.rememberedN", { n: result.created.length + result.updated.length }), open);
    } else {
      toast(t("memory.rememberedNothing"), {
        actionLabel: t("memory.saveAsNote"),
        action: async () => { await mem.createNote(text, conversationId); memoryChanged(); },
      });
    }
    return result;
  } catch (err) {
    toast(errorMessage(err));
    return null;
  }
}

function selectionInMessages() {
  const selection = document.getSelection();
  if (!selection || selection.isCollapsed || !selection.rangeCount) return null;
  const text = selection.toString().trim();
  if (text.length < MIN_SELECTION || text.length > MAX_SELECTION) return null;
  const range = selection.getRangeAt(0);
  const node = range.commonAncestorContainer;
  const element = node.nodeType === 1 ? /** @type {Element} */ (node) : node.parentElement;
  if (!element?.closest("[data-testid=messages]")) return null;
  const message = /** @type {HTMLElement | null} */ (element.closest("[data-message-id]"));
  const rect = range.getBoundingClientRect();
  return { text, messageId: message?.dataset.messageId || null, rect };
}

export function MemoryGestures({ api, toast, navigate }) {
  const mem = useMemoryApi(api);
  const [picked, setPicked] = useState(null);
  const pickedRef = useRef(null);
  pickedRef.current = picked;

  // The selection button follows the selection in the messages.
  useEffect(() => {
    let frame = 0;
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setPicked(selectionInMessages()));
    };
    document.addEventListener("selectionchange", update);
    return () => { document.removeEventListener("selectionchange", update); cancelAnimationFrame(frame); };
  }, []);

  // /retenir and /remember in the composer: caught before the composer sends anything.
  useEffect(() => {
    const command = (input) => {
      const match = COMMAND.exec(input?.value?.trim() || "");
      if (!match) return false;
      const text = (match[2] || "").trim();
      if (!text) { toast(t("memory.rememberEmpty")); return true; }
      input.value = "";
      input.dispatchEvent(new Event("input", { bubbles: true }));
      rememberAndReport(mem, toast, navigate, text, chatState.currentId);
      return true;
    };
    const onKey = (e) => {
      if (e.target?.id !== "composer-input" || e.key !== "Enter" || e.shiftKey || e.isComposing) return;
      if (command(e.target)) { e.preventDefault(); e.stopPropagation(); }
    };
    const onSubmit = (e) => {
      if (!e.target?.classList?.contains("composer")) return;
      if (command(e.target.querySelector("#composer-input"))) { e.preventDefault(); e.stopPropagation(); }
    };
    document.addEventListener("keydown", onKey, true);
    document.addEventListener("submit", onSubmit, true);
    return () => {
      document.removeEventListener("keydown", onKey, true);
      document.removeEventListener("submit", onSubmit, true);
    };
  }, [mem]);

  if (!picked) return null;
  const remember = () => {
    const { text, messageId } = pickedRef.current || {};
    setPicked(null);
    document.getSelection()?.removeAllRanges();
    if (text) rememberAndReport(mem, toast, navigate, text, chatState.currentId, messageId);
  };
  const top = Math.max(8, picked.rect.top - 48);
  const left = Math.min(window.innerWidth - 140, Math.max(8, picked.rect.left + picked.rect.width / 2 - 60));
  return html`<button type="button" class="button primary remember-pop" style=${{ top: `${top}px`, left: `${left}px` }}
      onPointerDown=${(e) => e.preventDefault()} onClick=${remember} data-action="remember-selection"
      title=${t("memory.rememberHint")}>${t("memory.remember")}</button>`;
}
