// The conversation list: search, a space filter (once a conversation has a space), new, open, rename in
// place, delete (the parent offers the undo).
import { html, useEffect, useRef, useState } from "../lib.js";
import { t, formatTime } from "../i18n.js";
import { Icon } from "./icons.js";

export function ConversationList({ items, spaces = [], space = "*", setSpace, currentId, query, setQuery, onOpen,
  onNew, onRename, onDelete, onClose, searchRef }) {
  const [renaming, setRenaming] = useState(null);
  // Focus stays in the list when the control that had it goes: on the item that took the deleted
  // one's place, else on "New conversation".
  const deleteKeepingFocus = async (c) => {
    const at = items.indexOf(c);
    await onDelete(c);
    afterRender(() => {
      const rest = document.querySelectorAll(".convlist-items .conv-open");
      const next = rest[Math.min(at, rest.length - 1)] || document.querySelector("[data-action=new-conversation]");
      /** @type {HTMLElement | null} */ (next)?.focus();
    });
  };
  return html`<div class="convlist">
    <div class="convlist-head">
      <h2 id="convlist-title">${t("chat.conversations")}</h2>
      ${onClose ? html`<button type="button" class="icon-button drawer-close" onClick=${onClose}
          aria-label=${t("chat.closeList")}><${Icon} name="close" /></button>` : null}
    </div>
    <button type="button" class="button primary wide" onClick=${onNew} data-action="new-conversation">
      <${Icon} name="plus" />${t("chat.new")}
    </button>
    <div class="search">
      <${Icon} name="search" size=${18} />
      <label for="conv-search" class="visually-hidden">${t("chat.search")}</label>
      <input id="conv-search" ref=${searchRef} type="search" value=${query} placeholder=${t("chat.searchPlaceholder")}
        onInput=${(e) => setQuery(e.currentTarget.value)} autocomplete="off" />
    </div>
    ${spaces.length ? html`<div class="space-filter">
        <label for="conv-space">${t("chat.space")}</label>
        <select id="conv-space" value=${space} onChange=${(e) => setSpace(e.currentTarget.value)}>
          <option value="*">${t("chat.space.all")}</option>
          <option value="">${t("chat.space.none")}</option>
          ${spaces.map((name) => html`<option key=${name} value=${name}>${name}</option>`)}
        </select>
      </div>` : null}
    ${items.length
      ? html`<ul class="convlist-items" aria-labelledby="convlist-title">
        ${items.map((c) => html`<li key=${c.id} class=${`conv ${c.id === currentId ? "current" : ""}`} data-conv-id=${c.id}>
          ${renaming === c.id
            ? html`<${RenameField} value=${c.title} onDone=${async (title, byKey) => {
                setRenaming(null);
                if (byKey) afterRender(() => focusIn(`.conv[data-conv-id="${c.id}"] [data-action=rename]`));
                if (title !== null && title.trim() && title.trim() !== c.title) await onRename(c, title.trim());
              }} />`
            : html`<button type="button" class="conv-open" onClick=${() => onOpen(c.id)}
                aria-current=${c.id === currentId ? "true" : undefined}>
                <span class="conv-title">${c.title || t("chat.untitled")}</span>
                <span class="conv-meta">
                  ${c.space ? html`<span class="badge">${c.space}</span>` : null}
                  <time>${formatTime(c.updated)}</time>
                </span>
                ${c.preview ? html`<span class="conv-preview">${c.preview}</span>` : null}
              </button>
              <div class="conv-actions">
                <button type="button" class="icon-button small" onClick=${() => setRenaming(c.id)}
                  aria-label=${`${t("common.rename")} — ${c.title || t("chat.untitled")}`} data-action="rename">
                  <${Icon} name="pencil" size=${16} /></button>
                <button type="button" class="icon-button small" onClick=${() => deleteKeepingFocus(c)}
                  aria-label=${`${t("common.delete")} — ${c.title || t("chat.untitled")}`} data-action="delete">
                  <${Icon} name="trash" size=${16} /></button>
              </div>`}
        </li>`)}
      </ul>`
      : html`<p class="muted empty-list">${query ? t("chat.noMatch")
        : space !== "*" ? t("chat.space.empty") : t("chat.noConversations")}</p>`}
  </div>`;
}

function afterRender(fn) {
  requestAnimationFrame(() => requestAnimationFrame(fn));
}

function focusIn(selector) {
  document.querySelector(selector)?.focus();
}

/** Enter keeps the title, Escape drops it (both give focus back to the rename button: `byKey`);
 *  leaving the field keeps it and leaves focus where the user put it. */
function RenameField({ value, onDone }) {
  const [text, setText] = useState(value || "");
  const ref = useRef(null);
  const done = useRef(false);
  useEffect(() => { ref.current?.focus(); ref.current?.select(); }, []);
  const finish = (result, byKey) => {
    if (done.current) return;
    done.current = true;
    onDone(result, byKey);
  };
  return html`<form class="rename" onSubmit=${(e) => { e.preventDefault(); finish(text, true); }}>
    <label for="rename-input" class="visually-hidden">${t("chat.renameLabel")}</label>
    <input autocomplete="off" id="rename-input" ref=${ref} value=${text} maxlength="120" onInput=${(e) => setText(e.currentTarget.value)}
      onKeyDown=${(e) => { if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); finish(null, true); } }}
      onBlur=${() => finish(text, false)} />
  </form>`;
}
