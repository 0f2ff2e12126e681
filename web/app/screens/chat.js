// The chat: the conversation list (a drawer on phones), the messages with their streaming reply,
// the composer, the provider picker and the per-conversation settings.
import { html, useEffect, useLayoutEffect, useRef, useState, useCallback, Comlink } from "../lib.js";
import { t } from "../i18n.js";
import { useApp } from "../app.js";
import { Icon } from "../components/icons.js";
import { Dialog, Field, useToast, errorMessage, useBusy, useMediaQuery } from "../components/ui.js";
import { ConversationList } from "../components/convlist.js";
import { Message, ErrorNote, RequestView, copyText, familyOf, kindLabel } from "../components/message.js";
import { bus, chatState, emit, markStreaming } from "../store.js";
import { AttachButton, AttachmentChips, LimitsNote, giveBack, limitsText, pastedFiles, useAttachments,
  useDropTarget } from "../components/attachments.js";
import { ModelButton, ModelDialog } from "../components/model-picker.js";
import { Onboarding, needsOnboarding } from "../components/onboarding.js";
import { ConversationUsage, InstructionsFields, ReplyUsage, personasApi, useUsage } from "../components/instructions.js";
import { useChatCommands } from "../components/keyboard.js";
import { useToastRoom } from "../components/toast-room.js";

const SEARCH_DEBOUNCE_MS = 200;
// The composer's preview waits for a pause in typing: each one runs the whole masking in py-worker.
const PREVIEW_DEBOUNCE_MS = 300;
// Within this many pixels of the bottom the view follows a streaming reply; further up, the user is reading.
const STICK_PX = 80;
// A scroll within this long after the user touched the list (wheel, touch, keys, scroll bar) is theirs.
const USER_SCROLL_MS = 1000;
const PHONE_QUERY = "(max-width: 760px)";
// A long conversation opens on its last turns (bench/render.py: all 2,000 turns of one took seconds to
// paint); earlier ones come back in steps as the user scrolls up, or with the button above them.
const TAIL_TURNS = 40;
const EARLIER_STEP = 80;
const EARLIER_PX = 300; // scrolled this close to the top, the next step of earlier turns is added

function splitLines(text) {
  return text.split("\n").map((s) => s.trim()).filter(Boolean);
}

function useChatChanges() {
  const [, setTick] = useState(0);
  useEffect(() => {
    let frame = 0;
    const on = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => { frame = 0; setTick((x) => x + 1); });
    };
    bus.addEventListener("chat-changed", on);
    return () => { bus.removeEventListener("chat-changed", on); cancelAnimationFrame(frame); };
  }, []);
}

export function ChatScreen() {
  const { api, providers, settings, toast } = useApp();
  const [query, setQuery] = useState("");
  const [items, setItems] = useState([]);
  const [space, setSpaceState] = useState(chatState.space);
  const setSpace = (value) => { chatState.space = value; setSpaceState(value); };
  const [currentId, setCurrentId] = useState(chatState.currentId);
  const [conv, setConv] = useState(null);
  const [drawer, setDrawer] = useState(false);
  const phone = useMediaQuery(PHONE_QUERY); // the list is a drawer, inert while closed
  const [showSettings, setShowSettings] = useState(false);
  const [showWireLog, setShowWireLog] = useState(false);
  const [showModel, setShowModel] = useState(false);
  const [loadError, setLoadError] = useState("");
  const searchRef = useRef(null);
  const convRef = useRef(null);
  convRef.current = conv;
  useChatChanges();

  // Lists are asked for from several places at once (a reply ending, a rename, a search): only the
  // answer to the latest question is shown, so an earlier, slower answer never brings back old titles.
  const listAsked = useRef(0);
  const loadList = useCallback(async (text = query) => {
    const asked = ++listAsked.current;
    const list = await api.listConversations(text);
    if (asked === listAsked.current) setItems(list);
    return list;
  }, [api, query]);

  const refresh = useCallback(async (id) => {
    try {
      const view = await api.getConversation(id);
      if (chatState.currentId === id) setConv(view);
      return view;
    } catch (err) {
      if (chatState.currentId === id) { setConv(null); setLoadError(errorMessage(err)); }
      return null;
    }
  }, [api]);

  const open = useCallback(async (id) => {
    const previous = chatState.currentId;
    if (previous && previous !== id) api.activity("left_conversation", previous).catch(() => {});
    chatState.currentId = id;
    setCurrentId(id);
    setLoadError("");
    setDrawer(false);
    if (id) await refresh(id);
    else setConv(null);
  }, [api, refresh]);

  useEffect(() => {
    const timer = setTimeout(() => loadList(query).catch(() => {}), query ? SEARCH_DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [query]);

  useEffect(() => {
    (async () => {
      const list = await loadList("");
      const wanted = chatState.currentId && list.some((c) => c.id === chatState.currentId)
        ? chatState.currentId : inSpace(list, chatState.space)[0]?.id || null;
      await open(wanted);
    })().catch((err) => setLoadError(errorMessage(err)));
    const onNotice = (e) => {
      const notice = e.detail || {};
      if (notice.type === "memory" && notice.conversation_id === chatState.currentId) refresh(notice.conversation_id);
    };
    bus.addEventListener("notice", onNotice);
    return () => bus.removeEventListener("notice", onNotice);
  }, []);

  // Opening the drawer moves focus into it, in the same frame as it appears (after paint, a fast
  // keystroke or a screen reader would still be on the toggle); Escape closes it. Focus goes to the
  // conversation shown (or the close button), not the search field: on a phone a focused text field
  // pops the keyboard over the list the user came to see (issue 18).
  // Closing it gives focus back to its toggle when focus was in it (the drawer turns inert and drops it).
  const toggleRef = useRef(null);
  useLayoutEffect(() => {
    if (!drawer) return undefined;
    (document.querySelector(".chat-side .conv.current .conv-open") || document.querySelector(".chat-side .drawer-close")
      || searchRef.current)?.focus();
    const onKey = (e) => { if (e.key === "Escape") setDrawer(false); };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      const focused = document.activeElement;
      if (!focused || focused === document.body || focused.closest(".chat-side")) toggleRef.current?.focus();
    };
  }, [drawer]);

  // A new conversation shows at once (blank, composer ready) while the worker creates it: what the user
  // types in the meantime belongs to the new conversation and moves with it (see Composer).
  // "New conversation" (reuse): an empty untitled one of the space shown is opened rather than another made.
  const creating = useRef(null);
  const create = (reuse = false) => {
    creating.current ||= createNow(reuse).finally(() => { creating.current = null; });
    return creating.current;
  };
  const createNow = async (reuse) => {
    const previous = chatState.currentId;
    if (previous) api.activity("left_conversation", previous).catch(() => {});
    chatState.currentId = null;
    setCurrentId(null);
    setConv(null);
    setDrawer(false);
    // Started while the list shows one space: the new conversation belongs to it, so it stays in view.
    const view = await api.createConversation({ title: "", space: space === "*" || !space ? null : space,
      reuse_empty: reuse });
    setQuery("");
    await loadList("");
    if (chatState.currentId !== null) return view; // the user opened another conversation meanwhile
    const typed = chatState.drafts.get("");
    chatState.drafts.delete("");
    if (typed) chatState.drafts.set(view.id, typed);
    chatState.currentId = view.id;
    setCurrentId(view.id);
    setConv(view);
    return view;
  };

  const rename = async (c, title) => {
    await api.renameConversation(c.id, title);
    await loadList();
    if (c.id === chatState.currentId) await refresh(c.id);
  };

  const remove = async (c) => {
    await api.deleteConversation(c.id);
    chatState.live.delete(c.id);
    chatState.drafts.delete(c.id);
    const list = await loadList();
    if (c.id === chatState.currentId) await open(inSpace(list, space)[0]?.id || null);
    toast(t("chat.deleted", { title: c.title || t("chat.untitled") }), {
      actionLabel: t("common.undo"),
      action: async () => {
        await api.undoDelete(c.id);
        await loadList();
        await open(c.id);
      },
    });
  };

  const runTurn = async (id, text, start, files = []) => {
    // reply: restored (what the saved message will hold); wire: as the model wrote it (what is rendered);
    // request: the whole request in flight, for "what the model saw"; files: the attached files' chips.
    const state = { text, files, saved: null, reply: "", wire: "", request: null, error: null, streaming: true };
    chatState.live.set(id, state);
    markStreaming();
    emit("chat-changed");
    const onEvent = Comlink.proxy((event) => {
      if (event.type === "saved") state.saved = event.message;
      else if (event.type === "delta") state.reply += event.text;
      else if (event.type === "wire") state.wire += event.text;
      else if (event.type === "request") state.request = event.entry;
      else if (event.type === "done") state.done = event.message;
      else if (event.type === "error") state.error = event;
      emit("chat-changed");
    });
    try {
      await start(onEvent);
    } catch (err) {
      const kind = { Busy: "busy", Offline: "offline" }[err?.name] || "unknown";
      state.error = { kind, message: errorMessage(err) };
    }
    state.streaming = false;
    markStreaming();
    const view = await refresh(id);
    await loadList().catch(() => {});
    if (state.error && state.error.kind !== "aborted") {
      const inConversation = view?.message_list?.some((m) => m.role === "user" && m.text === text);
      if (!inConversation && text && !chatState.drafts.get(id)) chatState.drafts.set(id, text);
      if (!state.saved && files.length) giveBack(id, files); // nothing saved: the files go back to the composer
      chatState.live.set(id, { error: state.error, streaming: false });
    } else {
      chatState.live.delete(id);
    }
    emit("chat-changed");
  };

  // `signature`: the preview the composer showed for `text`; the send goes only if it masks exactly that.
  // `files`: the composer's ready files and the preview's signature of each (issue 20).
  const send = async (text, signature = null, files = null) => {
    let id = chatState.currentId;
    if (!id) id = (await create()).id;
    chatState.drafts.delete(id);
    if (files?.items.length) {
      const keys = files.items.map((it) => it.key);
      await runTurn(id, text, (onEvent) => api.sendAttached(id, text, keys, signature, files.signature, onEvent),
        files.items);
      return;
    }
    await runTurn(id, text, (onEvent) => (signature
      ? api.sendPreviewed(id, text, signature, onEvent) : api.send(id, text, onEvent)));
  };
  const ensureConversation = async () => chatState.currentId || (await create()).id;

  const retry = async () => {
    const id = chatState.currentId;
    if (!id) return;
    chatState.live.delete(id);
    await runTurn(id, "", (onEvent) => api.retry(id, onEvent));
  };

  // Edit and regenerate (issue 18): the turns from the changed place on leave the screen at once (the
  // worker keeps them as the previous version); the new version streams in their place.
  const rework = async (message, keepBefore, text, start) => {
    const id = chatState.currentId;
    const shown = convRef.current;
    if (!id || !shown || shown.id !== id) return;
    const at = shown.message_list.findIndex((m) => m.id === message.id);
    if (at < 0) return;
    chatState.live.delete(id);
    setConv({ ...shown, message_list: shown.message_list.slice(0, keepBefore(at)) });
    await runTurn(id, text, start);
  };
  const edit = (message, text) => rework(message, (at) => at, text,
    (onEvent) => api.editMessage(chatState.currentId, message.id, text, onEvent));
  const regenerate = (message) => rework(message, (at) => at, "",
    (onEvent) => api.regenerate(chatState.currentId, message.id, onEvent));
  const switchVersion = async (message, delta) => {
    const id = chatState.currentId;
    const target = delta < 0 ? message.version?.previous : message.version?.next;
    if (!id || !target) return;
    try {
      const view = await api.switchVersion(id, message.id, delta);
      if (chatState.currentId === id) setConv(view);
      loadList().catch(() => {});
    } catch (err) {
      toast(errorMessage(err));
      return;
    }
    // Focus stays on the switch, now on the version shown (the other button when this one reached an end).
    requestAnimationFrame(() => {
      const box = document.querySelector(`article[data-message-id="${target}"]`);
      /** @type {(selector: string) => HTMLButtonElement | null} */
      const button = (selector) => box?.querySelector(selector);
      const here = button(`[data-action=version-${delta < 0 ? "previous" : "next"}]`);
      (here && !here.disabled ? here : button("[data-testid=versions] button:not([disabled])"))?.focus();
    });
  };

  const stop = () => { if (chatState.currentId) api.stop(chatState.currentId).catch(() => {}); };

  // The header's model (issue 18): a new conversation is made first when none is shown.
  const openModel = async () => {
    if (!chatState.currentId) await create(true);
    setShowModel(true);
  };
  const pickModel = async (patch) => {
    const id = chatState.currentId;
    const view = await api.updateConversation(id, patch);
    if (chatState.currentId === id) setConv(view);
    return view;
  };

  const live = currentId ? chatState.live.get(currentId) : null;

  // The keyboard layer's commands (components/keyboard.js: shortcuts and the command palette, issue 18).
  const focusComposer = () => requestAnimationFrame(() => document.getElementById("composer-input")?.focus());
  const lastReply = () => [...(convRef.current?.message_list || [])].reverse().find((m) => m.role === "assistant");
  const replying = () => Boolean(chatState.currentId && chatState.live.get(chatState.currentId)?.streaming);
  useChatCommands({
    new: async (command) => {
      const view = await create(true);
      if (command.persona && view) {
        const next = await personasApi(api, "setInstructions", [view.id, { persona: command.persona }]);
        if (chatState.currentId === view.id) setConv(next);
      }
      focusComposer();
    },
    search: () => {
      if (phone) setDrawer(true);
      requestAnimationFrame(() => searchRef.current?.focus());
    },
    focus: focusComposer,
    stop,
    regenerate: () => {
      const reply = lastReply();
      if (!reply || replying()) toast(t("keys.nothingToRegenerate"));
      else regenerate(reply);
    },
    copy: async () => {
      const reply = [...(convRef.current?.message_list || [])].reverse()
        .find((m) => m.role === "assistant" && (m.text || "").trim());
      if (!reply) { toast(t("keys.nothingToCopy")); return; }
      toast((await copyText(reply.text)) ? t("keys.copied") : t("chat.copyFailed"));
    },
    "conversation-settings": () => { if (convRef.current) setShowSettings(true); },
    "wire-log": () => { if (convRef.current) setShowWireLog(true); },
    open: (command) => open(command.conversation),
  });

  return html`<div class=${`chat ${drawer ? "drawer-open" : ""}`}>
    <aside class="chat-side" aria-label=${t("chat.conversations")} inert=${phone && !drawer ? true : undefined}>
      <${ConversationList} items=${inSpace(items, space)} spaces=${spacesOf(items, space)} space=${space}
        setSpace=${setSpace} currentId=${currentId} query=${query} setQuery=${setQuery}
        onOpen=${open} onNew=${() => create(true)} onRename=${rename} onDelete=${remove} searchRef=${searchRef}
        onClose=${phone ? () => setDrawer(false) : null} />
    </aside>
    <div class="drawer-backdrop" onClick=${() => setDrawer(false)} aria-hidden="true"></div>
    <section class="chat-main" aria-label=${conv?.title || t("chat.new")}>
      <header class="chat-head">
        <button type="button" class="icon-button drawer-toggle" ref=${toggleRef} onClick=${() => setDrawer(true)}
          aria-label=${t("chat.openList")} aria-expanded=${drawer ? "true" : "false"}>
          <${Icon} name="menu" /></button>
        <h1 class="chat-title" title=${conv?.title || undefined}>${conv ? conv.title || t("chat.untitled") : t("chat.new")}</h1>
        <${ModelButton} conv=${conv} providers=${providers} settings=${settings} onClick=${openModel} />
        <button type="button" class="icon-button head-new" onClick=${() => create(true)} aria-label=${t("chat.new")}
          title=${t("chat.new")} data-action="new-conversation-head">
          <${Icon} name="plus" /></button>
        ${conv ? html`<div class="chat-tools">
          <button type="button" class="icon-button" onClick=${() => setShowWireLog(true)} aria-label=${t("wirelog.open")}
            title=${t("wirelog.open")} data-action="wire-log"><${Icon} name="eye" /></button>
          <button type="button" class="icon-button" onClick=${() => setShowSettings(true)} aria-label=${t("chat.settings")}
            title=${t("chat.settings")} data-action="conversation-settings"><${Icon} name="sliders" /></button>
        </div>` : null}
      </header>
      <${MessageList} conv=${conv} live=${live} onRetry=${retry} loadError=${loadError} onEdit=${edit}
        onRegenerate=${regenerate} onSwitch=${switchVersion}
        welcome=${needsOnboarding(providers, settings) && !(conv?.message_list || []).length && !live} />
      <${Composer} convId=${currentId} streaming=${Boolean(live?.streaming)} space=${space} keep=${conv?.keep || []}
        onSend=${send} onStop=${stop} ensureConversation=${ensureConversation}
        onConvChanged=${(view) => { if (view.id === chatState.currentId) setConv(view); }} />
    </section>
    ${showModel && conv ? html`<${ModelDialog} api=${api} conv=${conv} providers=${providers} settings=${settings}
        onClose=${() => setShowModel(false)} onPicked=${pickModel} />` : null}
    ${showWireLog && conv ? html`<${WireLog} convId=${conv.id} onClose=${() => setShowWireLog(false)} />` : null}
    ${showSettings && conv ? html`<${ConversationSettings} conv=${conv} onClose=${() => setShowSettings(false)}
        onSaved=${(view) => { setConv(view); loadList(); }} />` : null}
  </div>`;
}

/** The conversations of the list's space filter ("*": all; "": those in no space). */
function inSpace(items, space) {
  return space === "*" ? items : items.filter((c) => (c.space || "") === space);
}

/** The spaces the filter offers: those of the conversations, and the one chosen even when none
  is left in it; none at all when no conversation has a space (the filter is then not shown). */
function spacesOf(items, space) {
  const names = new Set(items.map((c) => c.space).filter(Boolean));
  if (space && space !== "*") names.add(space);
  return [...names].sort((a, b) => a.localeCompare(b));
}

function MessageList({ conv, live, onRetry, loadError, onEdit, onRegenerate, onSwitch, welcome = false }) {
  const { api } = useApp();
  const ref = useRef(null);
  const stick = useRef(true);
  const messages = conv?.message_list || [];
  const extra = [];
  if (live && (live.streaming || live.done)) {
    const savedInList = live.saved && messages.some((m) => m.id === live.saved.id);
    const pendingRequest = live.streaming ? live.request : null;
    if (live.saved && !savedInList) extra.push({ ...live.saved, pendingRequest });
    else if (!live.saved && (live.text || live.files?.length)) {
      extra.push({ id: "pending-user", role: "user", text: live.text, spans: [],
        attachments: (live.files || []).map((it) => ({ name: it.name, size: it.size, kind: it.kind })) });
    }
    // Once the finished reply is in the saved list, the live copy is not shown beside it.
    const replyInList = live.done && messages.some((m) => m.id === live.done.id);
    if ((!live.error || live.reply) && !replyInList) {
      extra.push({ id: "pending-reply", role: "assistant", text: live.reply, wire: live.wire, streaming: live.streaming });
    }
  }
  // While a request is in flight, "what the model saw" of its user turn shows that whole request.
  const inFlight = live?.streaming && live.request && live.saved ? live.saved.id : null;
  const all = [...messages.map((m) => (m.id === inFlight ? { ...m, pendingRequest: live.request } : m)), ...extra];
  const last = messages[messages.length - 1];
  const [tail, earlier, showEarlier] = useTail(ref, all, conv?.id);
  // Tokens and cost (issue 18): asked again when the saved conversation changes.
  const usage = useUsage(api, conv?.id, conv ? `${conv.updated}:${messages.length}:${messages.map((m) => m.id).join(",")}` : "");
  const usageOf = (m) => (usage?.replies?.[m.id]
    ? html`<${ReplyUsage} usage=${usage.replies[m.id]} currency=${usage.currency} />` : null);

  // The view follows the conversation unless the user scrolled up to read; a message they send
  // brings it back. Only the user can stop it (onScroll and touch below): the list's height also
  // changes when a finished reply is swapped for its saved copy, far from the bottom.
  const touched = useRef(-Infinity);
  const sent = useRef(0);
  const userTurns = all.filter((m) => m.role === "user").length;
  useEffect(() => {
    const el = ref.current;
    if (userTurns > sent.current) stick.current = true;
    sent.current = userTurns;
    if (el && stick.current && !welcome) el.scrollTop = el.scrollHeight; // the first run reads from its top
  });
  useEffect(() => { stick.current = true; }, [conv?.id]);
  // A toast sits above the composer and the list keeps room for it (the first run reads from its top).
  useToastRoom(ref, () => stick.current && !welcome, conv?.id);

  // It unsticks on a move up made just after the user touched the list, or on a touch far from the
  // bottom (a click on "Show earlier"); content growing below never does.
  const lastTop = useRef(0);
  const farFromBottom = (el) => el.scrollHeight - el.scrollTop - el.clientHeight >= STICK_PX;
  const onScroll = (e) => {
    const el = e.currentTarget;
    const byUser = performance.now() - touched.current < USER_SCROLL_MS;
    const movedUp = el.scrollTop < lastTop.current;
    lastTop.current = el.scrollTop;
    if (earlier && el.scrollTop < EARLIER_PX && byUser) showEarlier();
    if (!farFromBottom(el)) stick.current = true;
    else if (byUser && movedUp) stick.current = false;
  };
  const touch = () => {
    touched.current = performance.now();
    if (ref.current && farFromBottom(ref.current)) stick.current = false;
  };
  const liveError = live?.error && live.error.kind !== "aborted" && !live.streaming ? live.error : null;
  // The error the send reported shows once: on the last message when that message carries it (a failed
  // reply, with the worker's detail, or the draft kept), else below the messages (the draft not listed yet).
  const lastCarries = last && (last.error || last.draft);
  const retryFor = (m) => ((!live || liveError) && m === last && m.draft ? onRetry : null);
  const turnBusy = Boolean(live?.streaming);

  return html`<div class="messages" ref=${ref} onScroll=${onScroll} onWheel=${touch} onTouchMove=${touch}
      onKeyDown=${touch} onPointerDown=${touch} role="log" aria-live="polite"
      aria-relevant="additions" data-testid="messages">
    ${loadError ? html`<p class="inline-error" role="alert">${loadError}</p>` : null}
    ${welcome ? html`<${Onboarding} />` : !all.length ? html`<div class="empty-chat">
        <${Icon} name="shield" size=${40} />
        <p>${conv ? t("chat.empty") : t("chat.emptyNoConv")}</p>
        <${LimitsNote} api=${api} />
      </div>` : null}
    ${earlier ? html`<button type="button" class="button small earlier" onClick=${showEarlier} data-action="show-earlier">
        ${t("chat.earlier", { n: Math.min(earlier, EARLIER_STEP) })}</button>` : null}
    ${tail.map((m) => html`<${Message} key=${m.id} message=${m} streaming=${Boolean(m.streaming)} api=${api} convId=${conv?.id}
        onRetry=${retryFor(m)} memoryOff=${conv?.memory_off} error=${m === last && lastCarries ? liveError : null}
        onEdit=${m.id.startsWith("pending") ? null : onEdit} onSwitch=${onSwitch} busy=${turnBusy}
        onRegenerate=${m.id.startsWith("pending") || !messages.includes(m) ? null : onRegenerate}
        footer=${m.role === "assistant" ? usageOf(m) : null} />`)}
    ${liveError && !lastCarries ? html`<${ErrorNote} error=${liveError} onRetry=${onRetry} />` : null}
    ${live?.streaming ? null : html`<${ConversationUsage} usage=${usage} />`}
  </div>`;
}

/** The composer's preview (issue 17): what a send of the typed text would mask, computed by py-worker
 *  with the send's own engine and options after a pause in typing. `preview.text` is the text it is for. */
/** @typedef {{text: string, keys: string, data: any, error: string}} Preview */
/** @returns {[Preview, (value: string, fileKeys?: string[]) => Promise<any>]} */
function usePreview(api, convId, text, space, keepKey, keys) {
  const [preview, setPreview] = useState(/** @type {Preview} */ ({ text: "", keys: "", data: null, error: "" }));
  const asked = useRef(0);
  const ask = useCallback(async (value, fileKeys = []) => {
    const n = ++asked.current;
    const shown = fileKeys.join(",");
    try {
      const data = await api.preview(convId || null, value, convId ? null : { space: space === "*" ? null : space },
        fileKeys.length ? fileKeys : null);
      if (n === asked.current) setPreview({ text: value, keys: shown, data, error: "" });
      return data;
    } catch (err) {
      if (n === asked.current) setPreview({ text: value, keys: shown, data: null, error: errorMessage(err) });
      return null;
    }
  }, [api, convId, space]);
  const keysKey = keys.join(",");
  useEffect(() => {
    const value = text.trim();
    if (!value && !keys.length) { asked.current++; setPreview({ text: "", keys: "", data: null, error: "" }); return undefined; }
    const timer = setTimeout(() => ask(value, keys), PREVIEW_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, ask, keepKey, keysKey]);
  return [preview, ask];
}

function Composer({ convId, streaming, space, keep, onSend, onStop, ensureConversation, onConvChanged }) {
  const { api } = useApp();
  const key = convId || "";
  const [text, setText] = useState(chatState.drafts.get(key) || "");
  const ref = useRef(null);
  const lastActivity = useRef(0);
  const shownKey = useRef(key);
  const files = useAttachments(api, key);
  const ready = files.items.filter((it) => it.status === "ready");
  const reading = files.items.some((it) => it.status === "reading");
  const readyKeys = ready.map((it) => it.key);
  const [preview, askPreview] = usePreview(api, convId, text, space, keep.join("\n"), readyKeys);
  const [dragging, dropHandlers] = useDropTarget((list) => files.add(list));
  useEffect(() => {
    if (shownKey.current === key) return;
    shownKey.current = key;
    setText(chatState.drafts.get(key) || "");
    if (!key) ref.current?.focus();
  }, [key]);
  useEffect(() => {
    // A failed send may put its text back after this composer was created.
    const sync = () => {
      const draft = chatState.drafts.get(key);
      if (draft && !ref.current?.value) setText(draft);
    };
    bus.addEventListener("chat-changed", sync);
    return () => bus.removeEventListener("chat-changed", sync);
  }, [key]);
  const update = (value) => {
    setText(value);
    if (value) chatState.drafts.set(key, value);
    else chatState.drafts.delete(key);
    // Typing is activity for the idle lock and the extraction scheduler; once every 20 s is plenty.
    const now = Date.now();
    if (now - lastActivity.current > 20_000) {
      lastActivity.current = now;
      api.activity("activity", convId || null).catch(() => {});
    }
  };
  // The send carries the preview shown for exactly this text (asked now if typing has not paused yet):
  // the worker sends it only if it masks exactly that. Without a preview (it failed), the send says why.
  const submit = async (e) => {
    e?.preventDefault();
    const value = text.trim();
    if ((!value && !ready.length) || streaming || reading) return;
    const keysNow = readyKeys.join(",");
    const shown = preview.text === value && preview.keys === keysNow && preview.data ? preview.data
      : await askPreview(value, readyKeys);
    update("");
    const sent = ready.length ? { items: ready, signature: shown ? shown.file_signature : null } : null;
    files.clear();
    onSend(value, shown ? shown.signature : null, sent);
    ref.current?.focus();
  };
  // A click on a masked span keeps that value in clear in this conversation; on a kept one, masks it again.
  const toggle = async (value, kept) => {
    const id = await ensureConversation();
    const view = await api.getConversation(id);
    const next = kept ? view.keep.filter((v) => v !== value) : [...view.keep, value];
    onConvChanged(await api.updateConversation(id, { keep: next }));
  };
  const onKeyDown = (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !matchMedia(PHONE_QUERY).matches) submit(e);
  };
  const shownPreview = preview.keys === readyKeys.join(",") ? preview.data : null;
  return html`<form class=${`composer ${dragging ? "dragging" : ""}`} onSubmit=${submit} autocomplete="off"
      ...${dropHandlers} data-testid="composer">
    ${text.trim() ? html`<${PreviewLine} preview=${preview} current=${text.trim()} onToggle=${toggle} />` : null}
    <${AttachmentChips} items=${files.items} preview=${shownPreview} onRemove=${files.remove} onToggle=${toggle} />
    ${dragging ? html`<p class="attach-drop" aria-hidden="true">${t("attach.drop")}</p>` : null}
    <${AttachButton} onFiles=${(list) => files.add(list)} disabled=${streaming} describedBy="attach-limits"
      title=${limitsText(files.limits)} />
    <span id="attach-limits" class="visually-hidden">${limitsText(files.limits)}</span>
    <label for="composer-input" class="visually-hidden">${t("chat.composer")}</label>
    <textarea id="composer-input" ref=${ref} rows="1" value=${text} placeholder=${t("chat.composerPlaceholder")}
      autocomplete="off" onInput=${(e) => update(e.currentTarget.value)} onKeyDown=${onKeyDown}
      onPaste=${(e) => files.add(pastedFiles(e))} aria-describedby="composer-hint"></textarea>
    <span id="composer-hint" class="visually-hidden">${t("chat.enterHint")}${reading ? ` ${t("attach.waitReading")}` : ""}</span>
    ${streaming
      ? html`<button type="button" class="button stop" onClick=${() => { onStop(); ref.current?.focus(); }}
          data-action="stop">
          <${Icon} name="stop" /><span>${t("chat.stop")}</span></button>`
      : html`<button type="submit" class="button primary send" disabled=${(!text.trim() && !ready.length) || reading}
          data-action="send">
          <${Icon} name="send" /><span>${t("chat.send")}</span></button>`}
  </form>`;
}

/** The typed text with what will be masked (a button per span: a click keeps it in clear) and what this
 *  conversation keeps in clear (a click masks it again). `data-state`: "current" once it is for the text. */
function PreviewLine({ preview, current, onToggle }) {
  const data = preview.data;
  const upToDate = preview.text === current;
  const marks = data ? [...data.spans.map((s) => ({ ...s, kept: false })), ...data.kept.map((k) => ({ ...k, kept: true }))]
    .sort((a, b) => a.start - b.start) : [];
  const pieces = [];
  let at = 0;
  for (const mark of marks) {
    if (mark.start < at) continue;
    if (mark.start > at) pieces.push(data.text.slice(at, mark.start));
    const shown = data.text.slice(mark.start, mark.end);
    pieces.push(mark.kept
      ? html`<button type="button" class="kept-span" data-preview="kept" title=${t("preview.kept")}
          onClick=${() => onToggle(mark.value, true)}>${shown}</button>`
      : html`<button type="button" class=${`redacted fam-${familyOf(mark.kind)}`} data-preview="masked" data-kind=${mark.kind}
          title=${t("preview.mask", { kind: kindLabel(mark.kind), fake: mark.fake })}
          onClick=${() => onToggle(mark.value, false)}>${shown}</button>`);
    at = mark.end;
  }
  if (data && at < data.text.length) pieces.push(data.text.slice(at));
  return html`<div class="composer-preview" data-testid="composer-preview" data-state=${upToDate && data ? "current" : "stale"}
      aria-label=${t("preview.label")}>
    <span class="preview-label">${t("preview.label")} :</span>
    ${preview.error && upToDate ? html`<span class="preview-error">${t("preview.failed", { message: preview.error })}</span>`
      : !data ? html`<span>${t("preview.busy")}</span>`
      : !marks.length ? html`<span>${t("preview.none")}</span>`
      : html`<span class="preview-text">${pieces}</span>`}
  </div>`;
}

/** Every whole request of this conversation since the account was unlocked: sends and memory passes. */
function WireLog({ convId, onClose }) {
  const { api } = useApp();
  const [entries, setEntries] = useState(null);
  useEffect(() => { api.wireLog(convId).then(setEntries).catch(() => setEntries([])); }, [convId]);
  return html`<${Dialog} title=${t("wirelog.title")} onClose=${onClose} className="wire-log">
    <p class="small muted">${t("wirelog.hint")}</p>
    ${entries === null ? html`<p>${t("common.loading")}</p>` : !entries.length ? html`<p>${t("wirelog.none")}</p>`
      : entries.map((entry, i) => html`<section key=${i} class="wire-log-entry" data-testid="wire-log-entry"
          data-kind=${entry.kind}>
        <p><strong>${t(`wirelog.kind.${entry.kind}`)}</strong> · ${t(`wirelog.why.${entry.why}`)} ·
          <time>${new Date(entry.at).toLocaleString()}</time></p>
        <${RequestView} request=${entry.request} />
      </section>`)}
  <//>`;
}

function ConversationSettings({ conv, onClose, onSaved }) {
  const { api } = useApp();
  const toast = useToast();
  const [mode, setMode] = useState(conv.mode || "fake");
  const [memoryOff, setMemoryOff] = useState(Boolean(conv.memory_off));
  const [alwaysMask, setAlwaysMask] = useState((conv.always_mask || []).join("\n"));
  const [keep, setKeep] = useState((conv.keep || []).join("\n"));
  const [space, setSpace] = useState(conv.space || "");
  const [instructions, setInstructions] = useState({ persona: conv.persona || null, system_prompt: conv.system_prompt || "" });
  const [error, setError] = useState("");
  const [run, busy] = useBusy();
  const save = (e) => {
    e.preventDefault();
    run(async () => {
      const patch = { memory_off: memoryOff, always_mask: splitLines(alwaysMask), keep: splitLines(keep),
        space: space.trim() || null };
      if (!conv.pinned && mode !== conv.mode) patch.mode = mode;
      const changed = {};
      if ((instructions.persona || null) !== (conv.persona || null)) changed.persona = instructions.persona;
      if (instructions.system_prompt !== (conv.system_prompt || "")) changed.system_prompt = instructions.system_prompt;
      try {
        let view = await api.updateConversation(conv.id, patch);
        if (Object.keys(changed).length) view = await personasApi(api, "setInstructions", [conv.id, changed]);
        onSaved(view);
        toast(t("convsettings.saved"));
        onClose();
      } catch (err) {
        setError(errorMessage(err));
      }
    });
  };
  return html`<${Dialog} title=${t("convsettings.title")} onClose=${onClose}>
    <form class="stack" onSubmit=${save} id="conv-settings-form">
      <fieldset class="field" disabled=${conv.pinned}>
        <legend>${t("convsettings.mode")}</legend>
        ${["fake", "token"].map((m) => html`<div class="radio" key=${m}>
          <input type="radio" id=${`mode-${m}`} name="mode" value=${m} checked=${mode === m}
            onChange=${() => setMode(m)} />
          <label for=${`mode-${m}`}>${t(`convsettings.mode.${m}`)}</label>
        </div>`)}
        ${conv.pinned ? html`<p class="help">${t("convsettings.modePinned")}</p>` : null}
      </fieldset>
      <${InstructionsFields} convId=${conv.id} value=${instructions} onChange=${setInstructions} />
      <div class="check">
        <input type="checkbox" id="memory-off" checked=${memoryOff} onChange=${(e) => setMemoryOff(e.currentTarget.checked)}
          aria-describedby="memory-off-help" />
        <label for="memory-off">${t("convsettings.memoryOff")}</label>
        <p class="help" id="memory-off-help">${t("convsettings.memoryOffHelp")}</p>
      </div>
      <${Field} id="always-mask" label=${t("convsettings.alwaysMask")} help=${t("convsettings.alwaysMaskHelp")}>
        <textarea autocomplete="off" id="always-mask" rows="3" value=${alwaysMask} onInput=${(e) => setAlwaysMask(e.currentTarget.value)}
          aria-describedby="always-mask-help"></textarea>
      <//>
      <${Field} id="keep" label=${t("convsettings.keep")} help=${t("convsettings.keepHelp")}>
        <textarea autocomplete="off" id="keep" rows="3" value=${keep} onInput=${(e) => setKeep(e.currentTarget.value)}
          aria-describedby="keep-help"></textarea>
      <//>
      <${Field} id="space" label=${t("convsettings.space")} help=${t("convsettings.spaceHelp")}>
        <input autocomplete="off" id="space" value=${space} onInput=${(e) => setSpace(e.currentTarget.value)} maxlength="60"
          aria-describedby="space-help" />
      <//>
      ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
      <div class="row end">
        <button type="button" class="button" onClick=${onClose}>${t("common.cancel")}</button>
        <button type="submit" class="button primary" disabled=${busy}>${t("common.save")}</button>
      </div>
    </form>
  <//>`;
}

/** The last turns of a long conversation and how many are hidden before them; `showEarlier` adds a step
 *  of earlier ones and keeps the turns the user was reading where they were on the screen. */
function useTail(ref, all, convId) {
  const [limit, setLimit] = useState(TAIL_TURNS);
  const anchor = useRef(null); // the list's height before earlier turns were added
  useEffect(() => { setLimit(TAIL_TURNS); }, [convId]);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || anchor.current === null) return;
    el.scrollTop += el.scrollHeight - anchor.current;
    anchor.current = null;
  }, [limit]);
  const hidden = Math.max(0, all.length - limit);
  const showEarlier = () => {
    if (!hidden || anchor.current !== null) return;
    anchor.current = ref.current ? ref.current.scrollHeight : null;
    setLimit((n) => n + EARLIER_STEP);
  };
  return [hidden ? all.slice(hidden) : all, hidden, showEarlier];
}
