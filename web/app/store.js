// Page state that must outlive a screen: replies streaming in the background, unsent composer text,
// the open conversation, and notices from the worker. Cleared when the account locks.

export const bus = new EventTarget();

export const chatState = {
  live: new Map(), // conversation id -> {text, saved, reply, error, streaming}
  drafts: new Map(), // conversation id (or "") -> composer text not sent yet (memory only, never stored)
  currentId: null,
  space: "*", // the conversation list's space filter: "*" every space, "" none, else a space's name
};

export function emit(type, detail) {
  bus.dispatchEvent(new CustomEvent(type, { detail }));
}

export function resetChatState() {
  chatState.live.clear();
  chatState.drafts.clear();
  chatState.currentId = null;
  chatState.space = "*";
  delete document.body.dataset.streaming;
  emit("chat-changed");
}

export function markStreaming() {
  const any = [...chatState.live.values()].some((s) => s.streaming);
  if (any) document.body.dataset.streaming = "1";
  else delete document.body.dataset.streaming;
}
