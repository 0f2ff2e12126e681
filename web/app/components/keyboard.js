// The keyboard layer (issue 18, item 8): shortcuts for the chat's everyday actions, a command palette
// (Ctrl/⌘-K) over actions, screens, conversations and personas, and the list of shortcuts (Ctrl/⌘-/, and
// Settings). Chat actions reach the chat screen as "command" events on the bus (chat.js runs them); from
// another screen the chat is opened first and runs the command once it is there (chatState.command).
import { html, useEffect, useRef, useState } from "../lib.js";
import { t } from "../i18n.js";
import { Dialog, useId } from "./ui.js";
import { bus, chatState, emit } from "../store.js";
import { useApp } from "../app.js";
import { usePersonas } from "./instructions.js";

const IS_MAC = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
const MOD = IS_MAC ? "⌘" : "Ctrl";
const PALETTE_CONVERSATIONS = 8;

// Each shortcut: the command it runs, its keys as shown, and the test of a keydown. Ctrl/⌘ + Shift + a letter
// for the chat's actions (as ChatGPT and Open WebUI do), so that plain typing and the browser's own
// shortcuts (Ctrl-F, Ctrl-R, Ctrl-T...) stay theirs. Escape stops a reply only when nothing else is open.
export const SHORTCUTS = [
  { id: "palette", label: "keys.palette", keys: [MOD, "K"], test: (e) => mod(e) && !e.shiftKey && key(e) === "k" },
  { id: "new", label: "keys.new", keys: [MOD, "Shift", "O"], test: (e) => mod(e) && e.shiftKey && key(e) === "o" },
  { id: "search", label: "keys.search", keys: [MOD, "Shift", "F"], test: (e) => mod(e) && e.shiftKey && key(e) === "f" },
  { id: "focus", label: "keys.focus", keys: ["Shift", "Esc"], test: (e) => !mod(e) && e.shiftKey && e.key === "Escape" },
  { id: "stop", label: "keys.stop", keys: ["Esc"], test: (e) => !mod(e) && !e.shiftKey && e.key === "Escape",
    when: () => document.body.dataset.streaming === "1" },
  { id: "regenerate", label: "keys.regenerate", keys: [MOD, "Shift", "E"],
    test: (e) => mod(e) && e.shiftKey && key(e) === "e" },
  { id: "copy", label: "keys.copy", keys: [MOD, "Shift", "C"], test: (e) => mod(e) && e.shiftKey && key(e) === "c" },
  { id: "shortcuts", label: "keys.list", keys: [MOD, "/"], test: (e) => mod(e) && (e.key === "/" || e.code === "Slash") },
];

function mod(e) { return IS_MAC ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey; }
function key(e) { return (e.key || "").toLowerCase(); }

/** The shortcut a keydown means, or null (inside a modal dialog only the palette's and the list's). */
export function shortcutOf(e) {
  if (e.isComposing || e.repeat) return null;
  const found = SHORTCUTS.find((s) => s.test(e) && (!s.when || s.when()));
  if (!found) return null;
  if (document.querySelector("dialog[open]") && !["palette", "shortcuts"].includes(found.id)) return null;
  // Escape cancels an edit and closes the phone's drawer before it stops a reply.
  if (found.id === "stop" && (document.activeElement?.closest?.(".edit-box") || document.querySelector(".drawer-open"))) {
    return null;
  }
  return found;
}

/** Runs a chat command on the chat screen, opening it first when another screen is shown. */
export function runChatCommand(command, route, navigate) {
  if (route === "chat") { emit("command", command); return; }
  chatState.command = command;
  navigate("chat");
}

/** The chat screen's side: `handlers[id](command)`; also runs a command left while another screen showed. */
export function useChatCommands(handlers) {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const on = (e) => ref.current[e.detail?.id]?.(e.detail);
    bus.addEventListener("command", on);
    if (chatState.command) {
      const waiting = chatState.command;
      chatState.command = null;
      ref.current[waiting.id]?.(waiting);
    }
    return () => bus.removeEventListener("command", on);
  }, []);
}

/** The layer itself, once in the shell: the keydown listener, the palette and the list of shortcuts. */
export function KeyboardLayer({ route, navigate, routes }) {
  const [palette, setPalette] = useState(false);
  const [list, setList] = useState(false);
  const state = useRef({ route });
  state.current = { route };
  useEffect(() => {
    const onKey = (e) => {
      const found = shortcutOf(e);
      if (!found) return;
      e.preventDefault();
      e.stopPropagation();
      if (found.id === "palette") { setList(false); setPalette((open) => !open); }
      else if (found.id === "shortcuts") { setPalette(false); setList((open) => !open); }
      else runChatCommand({ id: found.id }, state.current.route, navigate);
    };
    document.addEventListener("keydown", onKey, true);
    const show = () => { setPalette(false); setList(true); };
    bus.addEventListener("show-shortcuts", show);
    return () => { document.removeEventListener("keydown", onKey, true); bus.removeEventListener("show-shortcuts", show); };
  }, [navigate]);
  return html`
    ${palette ? html`<${CommandPalette} route=${route} navigate=${navigate} routes=${routes}
      onClose=${() => setPalette(false)} onShortcuts=${() => { setPalette(false); setList(true); }} />` : null}
    ${list ? html`<${Dialog} title=${t("keys.title")} onClose=${() => setList(false)} className="shortcuts-dialog">
      <${ShortcutTable} /><//>` : null}`;
}

/** Every shortcut with its keys (the dialog, and Settings' section). */
export function ShortcutTable() {
  return html`<table class="shortcuts" data-testid="shortcuts">
    <thead><tr><th scope="col">${t("keys.action")}</th><th scope="col">${t("keys.keys")}</th></tr></thead>
    <tbody>${SHORTCUTS.map((s) => html`<tr key=${s.id} data-shortcut=${s.id}>
      <td>${t(s.label)}</td>
      <td>${s.keys.map((k, i) => html`${i ? " + " : ""}<kbd>${k}</kbd>`)}</td>
    </tr>`)}</tbody>
  </table>`;
}

const keysOf = (id) => SHORTCUTS.find((s) => s.id === id)?.keys.join(" + ") || "";
const folded = (text) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

function CommandPalette({ route, navigate, routes, onClose, onShortcuts }) {
  const { api } = useApp();
  const personas = usePersonas(api);
  const [query, setQuery] = useState("");
  const [conversations, setConversations] = useState([]);
  const [active, setActive] = useState(0);
  const listId = useId("palette-list");
  const inputRef = useRef(null);
  useEffect(() => { inputRef.current?.focus(); }, []);
  useEffect(() => {
    let alive = true;
    api.listConversations(query.trim()).then((items) => { if (alive) setConversations(items); }).catch(() => {});
    return () => { alive = false; };
  }, [query]);
  const chat = (command) => () => runChatCommand(command, route, navigate);
  const actions = [
    ...["new", "search", "focus", "stop", "regenerate", "copy"].map((id) => ({
      id: `action-${id}`, group: "action", label: t(SHORTCUTS.find((s) => s.id === id).label), hint: keysOf(id),
      run: chat({ id }) })),
    { id: "action-conversation-settings", group: "action", label: t("palette.settingsConv"),
      run: chat({ id: "conversation-settings" }) },
    { id: "action-wire-log", group: "action", label: t("palette.wireLog"), run: chat({ id: "wire-log" }) },
    { id: "action-shortcuts", group: "action", label: t("keys.list"), hint: keysOf("shortcuts"), run: onShortcuts,
      keepOpen: true },
  ];
  const screens = routes.map((r) => ({ id: `screen-${r.id}`, group: "screen", label: t("palette.goTo", { place: t(r.label) }),
    run: () => navigate(r.id) }));
  const withPersona = personas.map((p) => ({ id: `persona-${p.id}`, group: "persona",
    label: t("personas.newChat", { name: p.name }), run: chat({ id: "new", persona: p.id }) }));
  const wanted = folded(query.trim());
  const fixed = [...actions, ...screens, ...withPersona].filter((item) => !wanted || folded(item.label).includes(wanted));
  const convs = conversations.slice(0, PALETTE_CONVERSATIONS).map((c) => ({ id: `conv-${c.id}`, group: "conversation",
    label: c.title || t("chat.untitled"), hint: c.preview ? c.preview.slice(0, 60) : "",
    run: chat({ id: "open", conversation: c.id }) }));
  const items = [...fixed, ...convs];
  const current = Math.min(active, Math.max(0, items.length - 1));
  const choose = (item) => {
    if (!item) return;
    if (!item.keepOpen) onClose();
    item.run();
  };
  const onKeyDown = (e) => {
    if (e.key === "ArrowDown") { e.preventDefault(); setActive((current + 1) % Math.max(1, items.length)); }
    else if (e.key === "ArrowUp") { e.preventDefault(); setActive((current - 1 + items.length) % Math.max(1, items.length)); }
    else if (e.key === "Home") { e.preventDefault(); setActive(0); }
    else if (e.key === "End") { e.preventDefault(); setActive(items.length - 1); }
    else if (e.key === "Enter") { e.preventDefault(); choose(items[current]); }
  };
  useEffect(() => {
    document.getElementById(`${listId}-${current}`)?.scrollIntoView?.({ block: "nearest" });
  }, [current, items.length]);
  const groups = ["action", "screen", "persona", "conversation"].map((g) => ({ g, list: items
    .map((item, index) => ({ item, index })).filter(({ item }) => item.group === g) })).filter(({ list }) => list.length);
  return html`<${Dialog} title=${t("palette.title")} onClose=${onClose} className="palette">
    <div class="palette-body" data-testid="palette">
      <label for="palette-input" class="visually-hidden">${t("palette.input")}</label>
      <input id="palette-input" ref=${inputRef} type="text" autocomplete="off" autofocus role="combobox" aria-expanded="true"
        aria-controls=${listId} aria-autocomplete="list" aria-describedby="palette-hint"
        aria-activedescendant=${items.length ? `${listId}-${current}` : undefined} placeholder=${t("palette.input")}
        value=${query} onInput=${(e) => { setQuery(e.currentTarget.value); setActive(0); }} onKeyDown=${onKeyDown} />
      <p id="palette-hint" class="small muted">${t("palette.hint")}</p>
      <div id=${listId} role="listbox" class="palette-list" aria-label=${t("palette.results")}>
        ${groups.map(({ g, list }) => html`<div key=${g} role="group" aria-labelledby=${`${listId}-g-${g}`}>
          <div role="presentation" class="palette-group" id=${`${listId}-g-${g}`}>${t(`palette.group.${g}`)}</div>
          ${list.map(({ item, index }) => html`<div key=${item.id} id=${`${listId}-${index}`} role="option"
              class=${`palette-item ${index === current ? "active" : ""}`} aria-selected=${index === current ? "true" : "false"}
              data-command=${item.id} onClick=${() => choose(item)} onPointerMove=${() => index !== current && setActive(index)}>
            <span class="palette-label">${item.label}</span>
            ${item.hint ? html`<span class="palette-hint muted small">${item.hint}</span>` : null}
          </div>`)}
        </div>`)}
      </div>
      ${!items.length ? html`<p class="muted" role="status">${t("palette.none")}</p>` : null}
    </div>
  <//>`;
}

/** Settings' section: the shortcuts on screen, and the palette's door. */
export function KeyboardPanel() {
  return html`<section class="panel" aria-labelledby="set-keys" data-testid="keyboard-panel">
    <h2 id="set-keys">${t("keys.title")}</h2>
    <${ShortcutTable} />
  </section>`;
}
