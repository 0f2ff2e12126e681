// Page state that must outlive a screen: replies streaming in the background, unsent composer text,
// the open conversation, and notices from the worker. Cleared when the account locks.

/** A turn in flight (or failed) in a conversation, kept while the chat screen is elsewhere.
 * @typedef {object} LiveTurn
 * @property {string} [text] what the user sent
 * @property {object[]} [files] the attached files' chips
 * @property {object | null} [saved] the user's message once py-worker saved it
 * @property {string} [reply] the reply so far, restored (what the saved message will hold)
 * @property {string} [wire] the reply so far as the model wrote it (what is rendered)
 * @property {object | null} [request] the whole request in flight ("what the model saw")
 * @property {object} [done] the saved reply, once done
 * @property {{kind: string, message?: string} | null} error why the turn failed, or null
 * @property {boolean} streaming whether the reply is still coming
 */

/** A command for the chat screen (components/keyboard.js): `{id}` and what it needs.
 * @typedef {{id: string} & Record<string, unknown>} ChatCommand */

/** @typedef {object} ChatState
 * @property {Map<string, LiveTurn>} live conversation id -> its turn in flight or failed
 * @property {Map<string, string>} drafts conversation id (or "") -> composer text not sent yet (memory only, never stored)
 * @property {string | null} currentId the open conversation
 * @property {string} space the conversation list's space filter: "*" every space, "" none, else a space's name
 * @property {ChatCommand | null} command a command given on another screen, run once the chat screen shows
 */

/** Where the page's modules signal one another: "chat-changed", "command", "notice", "memory-changed"... */
export const bus = new EventTarget();

/** @type {ChatState} */
export const chatState = {
  live: new Map(),
  drafts: new Map(),
  currentId: null,
  space: "*",
  command: null,
};

/** Dispatches `type` on the bus with `detail`.
 * @param {string} type @param {unknown} [detail] */
export function emit(type, detail) {
  bus.dispatchEvent(new CustomEvent(type, { detail }));
}

/** Forgets every conversation's state (the account locked). */
export function resetChatState() {
  chatState.live.clear();
  chatState.drafts.clear();
  chatState.currentId = null;
  chatState.space = "*";
  delete document.body.dataset.streaming;
  emit("chat-changed");
}

/** `body[data-streaming]` while any conversation's reply is coming (the keyboard's Esc reads it). */
export function markStreaming() {
  const any = [...chatState.live.values()].some((s) => s.streaming);
  if (any) document.body.dataset.streaming = "1";
  else delete document.body.dataset.streaming;
}
