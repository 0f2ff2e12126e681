// The page side of the Mémoire: calls to the worker's memory methods (py/openmasq/worker/memory_api.py
// through py-worker's one `memory` door), the change signal the badge and the views listen to, the
// jump to a sentence's evidence, file downloads, and the passphrase encryption of exported files.
import { useMemo } from "../lib.js";
import { bus, chatState, emit } from "../store.js";

/** `memory(api).listCards(filter)` → api.memory("listCards", [filter]).
 * @returns {Record<string, (...args: any[]) => Promise<any>>} */
export function memory(api) {
  return new Proxy({}, { get: (_, name) => (...args) => api.memory(String(name), args) });
}

export function useMemoryApi(api) {
  return useMemo(() => memory(api), [api]);
}

/** Something in the memory changed here: views and the navigation badge reload. */
export function memoryChanged() {
  emit("memory-changed");
}

export function onMemoryChanged(listener) {
  const on = () => listener();
  const onNotice = (e) => { if (e.detail?.type === "memory") listener(e.detail); };
  bus.addEventListener("memory-changed", on);
  bus.addEventListener("notice", onNotice);
  return () => {
    bus.removeEventListener("memory-changed", on);
    bus.removeEventListener("notice", onNotice);
  };
}

// The same, and when the embedding index finished a sync (an "ml" notice): the header's count of indexed
// cards and the graph's semantic links follow it.
export function onMemoryOrIndexChanged(listener) {
  const onIndex = (e) => { if (e.detail?.type === "ml") listener(e.detail); };
  bus.addEventListener("notice", onIndex);
  const off = onMemoryChanged(listener);
  return () => { off(); bus.removeEventListener("notice", onIndex); };
}

// The chat renders the conversation a moment after the route changes: wait for the message that long.
const EVIDENCE_WAIT_MS = 8000;

/** Opens the conversation a sentence was learnt in and brings its message into view, highlighted. */
export function jumpToEvidence(navigate, conversationId, messageId) {
  chatState.currentId = conversationId;
  navigate("chat");
  if (!messageId) return;
  const selector = `[data-message-id="${CSS.escape(messageId)}"]`;
  const reveal = (el) => {
    el.scrollIntoView({ block: "center" });
    el.classList.add("evidence-target");
    el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: true });
    setTimeout(() => el.classList.remove("evidence-target"), 4000);
  };
  const found = document.querySelector(selector);
  if (found) { reveal(found); return; }
  const observer = new MutationObserver(() => {
    const el = document.querySelector(selector);
    if (el) { observer.disconnect(); clearTimeout(timer); requestAnimationFrame(() => reveal(el)); }
  });
  const timer = setTimeout(() => observer.disconnect(), EVIDENCE_WAIT_MS);
  observer.observe(document.body, { childList: true, subtree: true });
}

export function download(name, text, type = "text/plain") {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.className = "offscreen";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---- passphrase-encrypted export files -----------------------------------------------------------
// The account's own parameters (storage.js): PBKDF2-SHA256 with 600,000 iterations, AES-GCM 256.

export const ENCRYPTED_FORMAT = "openmasq-memory-encrypted";
const PBKDF2_ITERATIONS = 600_000;

const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const unb64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

async function fileKey(passphrase, salt, iterations) {
  const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(passphrase), "PBKDF2", false, ["deriveKey"]);
  return crypto.subtle.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, base,
    { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

export async function encryptText(text, passphrase) {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await fileKey(passphrase, salt, PBKDF2_ITERATIONS);
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(text));
  return JSON.stringify({ format: ENCRYPTED_FORMAT, version: 1, kdf: "PBKDF2-SHA256", iterations: PBKDF2_ITERATIONS,
    salt: b64(salt), iv: b64(iv), data: b64(data) });
}

export function isEncrypted(text) {
  try { return JSON.parse(text)?.format === ENCRYPTED_FORMAT; } catch { return false; }
}

/** The file's text; throws an Error named "WrongPassphrase" when the passphrase does not open it. */
export async function decryptText(text, passphrase) {
  const doc = JSON.parse(text);
  const key = await fileKey(passphrase, unb64(doc.salt), Number(doc.iterations) || PBKDF2_ITERATIONS);
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(doc.iv) }, key, unb64(doc.data));
    return new TextDecoder().decode(plain);
  } catch {
    const error = new Error("wrong passphrase");
    error.name = "WrongPassphrase";
    throw error;
  }
}
