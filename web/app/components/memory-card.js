// The card panel: edit a card's name, aliases, category and space; its sentences with when each was
// noted and where it came from (a jump to the conversation and message); the history of superseded
// sentences with restore; confirm, reject, merge, and delete with a 6-second undo.
import { html, useEffect, useState } from "../lib.js";
import { t, lang } from "../i18n.js";
import { useApp } from "../app.js";
import { Icon } from "./icons.js";
import { errorMessage, useBusy } from "./ui.js";
import { Sheet } from "./memory-sheet.js";
import { jumpToEvidence, memoryChanged, onMemoryChanged, useMemoryApi } from "./memory-api.js";
import { journalText } from "../labels.js";

export const CATEGORIES = ["personne", "organisation", "projet", "autre"];

export function when(ms) {
  if (!ms) return "";
  return new Date(ms).toLocaleString(lang() === "fr" ? "fr-FR" : "en-GB",
    { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function StatusBadge({ status }) {
  return html`<span class=${`badge mem-status mem-status-${status}`}
    title=${status === "proposed" ? t("memory.statusHelp.proposed") : undefined}>${t(`memory.status.${status}`)}</span>`;
}

export function CategoryDot({ category }) {
  return html`<span class=${`mem-dot cat-${category}`} aria-hidden="true"></span>`;
}

/** Deletes a card now and offers the 6-second undo in a toast. */
export async function deleteWithUndo(mem, toast, card, after) {
  await mem.deleteCard(card.id);
  memoryChanged();
  after?.();
  toast(t("memory.deleted", { entity: card.entity }), {
    actionLabel: t("common.undo"),
    action: async () => {
      try {
        await mem.undoDeleteCard(card.id);
      } catch (err) {
        toast(err?.name === "Expired" ? t("memory.undoExpired") : errorMessage(err));
      }
      memoryChanged();
    },
  });
}

export function CardPanel({ cardId, onClose, onOpen }) {
  const { api, toast, navigate } = useApp();
  const mem = useMemoryApi(api);
  const [card, setCard] = useState(null);
  const [error, setError] = useState("");
  const [merging, setMerging] = useState(false);
  const [run, busy] = useBusy();

  const load = async () => {
    try { setCard(await mem.getCard(cardId)); setError(""); } catch (err) {
      if (err?.name === "NotFound") onClose(); else setError(errorMessage(err));
    }
  };
  useEffect(() => { load(); return onMemoryChanged(() => load()); }, [cardId]);

  const act = (fn, message) => run(async () => {
    try {
      const view = await fn();
      if (view && view.id) setCard(view);
      setError("");
      if (message) toast(message);
      memoryChanged();
    } catch (err) {
      setError(errorMessage(err));
    }
  });

  if (!card) {
    return html`<${Sheet} title=${t("memory.panel")} onClose=${onClose} className="card-sheet" testId="card-panel">
      ${error ? html`<p class="field-error" role="alert">${error}</p>` : html`<p class="muted">${t("common.loading")}</p>`}
    <//>`;
  }
  const remove = () => run(async () => {
    try { await deleteWithUndo(mem, toast, card, onClose); } catch (err) { setError(errorMessage(err)); }
  });

  return html`<${Sheet} title=${card.entity} onClose=${onClose} className="card-sheet" testId="card-panel">
    <div class="mem-panel-status">
      <${CategoryDot} category=${card.category} />
      <span>${t(`memory.cat.${card.category}`)}</span>
      <${StatusBadge} status=${card.status} />
      ${card.scope ? html`<span class="badge">${card.scope}</span>` : null}
    </div>
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    <div class="mem-actions">
      ${card.status !== "confirmed" ? html`<button type="button" class="button primary" disabled=${busy}
          onClick=${() => act(() => mem.confirmCard(card.id), t("memory.confirmed"))} data-action="confirm-card">
          <${Icon} name="check" />${t("memory.confirm")}</button>` : null}
      ${card.status !== "rejected" ? html`<button type="button" class="button" disabled=${busy}
          onClick=${() => act(() => mem.rejectCard(card.id), t("memory.rejected"))} data-action="reject-card">
          ${t("memory.reject")}</button>` : null}
      <button type="button" class="button" onClick=${() => setMerging(!merging)} aria-expanded=${merging ? "true" : "false"}
        data-action="merge-card">${t("memory.merge")}</button>
      <button type="button" class="button danger" disabled=${busy} onClick=${remove} data-action="delete-card">
        <${Icon} name="trash" />${t("memory.delete")}</button>
    </div>
    ${merging ? html`<${MergePicker} card=${card} onMerged=${(kept) => { setMerging(false); toast(t("memory.merged"));
      memoryChanged(); if (kept.id !== card.id) onOpen?.(kept.id); else setCard(kept); }} />` : null}

    <section class="mem-section" aria-labelledby="mem-sentences">
      <h3 id="mem-sentences">${t("memory.sentences")}</h3>
      ${card.sentence_list.length ? html`<ol class="mem-sentences">
        ${card.sentence_list.map((s) => html`<${SentenceRow} key=${`${s.index}-${s.text}`} sentence=${s} busy=${busy}
          onEdit=${(text) => act(() => mem.editSentence(card.id, s.index, text))}
          onRemove=${() => act(() => mem.removeSentence(card.id, s.index))}
          onEvidence=${() => { onClose(); jumpToEvidence(navigate, s.evidence.conversation_id, s.evidence.message_id); }} />`)}
      </ol>` : html`<p class="muted">${t("memory.noSentences")}</p>`}
      <${AddSentence} busy=${busy} onAdd=${(text) => act(() => mem.addSentence(card.id, text))} />
    </section>

    <section class="mem-section" aria-labelledby="mem-history">
      <h3 id="mem-history">${t("memory.history")}</h3>
      ${card.history_list.length ? html`<ol class="mem-history">
        ${card.history_list.map((h) => html`<li key=${`${h.index}-${h.text}`} class="mem-history-item">
          <div class="mem-sentence-text">${h.text}</div>
          <div class="small muted">${t("memory.superseded", { reason: t(`memory.historyReason.${h.reason}`), date: when(h.superseded_at) })}
            · ${t("memory.noted", { date: when(h.noted_at) })}</div>
          <button type="button" class="button small" disabled=${busy} data-action="restore"
            onClick=${() => act(() => mem.restoreSentence(card.id, h.index), t("memory.restored"))}>
            <${Icon} name="retry" size=${16} />${t("memory.restore")}</button>
        </li>`)}
      </ol>` : html`<p class="muted small">${t("memory.historyEmpty")}</p>`}
    </section>

    <details class="mem-section" data-testid="card-fields-section">
      <summary>${t("memory.editFields")}</summary>
      <${CardFields} key=${`${card.id}-${card.updated}`} card=${card} busy=${busy}
        onSave=${(patch) => act(() => mem.updateCard(card.id, patch), t("memory.saved"))} />
    </details>

    ${card.journal.length ? html`<details class="mem-section">
      <summary>${t("memory.activity")}</summary>
      <ul class="mem-journal compact">${card.journal.map((e, i) => html`<li key=${i}>
        <span class="muted small">${when(e.at)}</span> ${t(`memory.action.${e.action}`)}
        ${e.after ? html` — <span>${journalText(e, "after")}</span>` : null}</li>`)}</ul>
    </details>` : null}
  <//>`;
}

function CardFields({ card, busy, onSave }) {
  const [entity, setEntity] = useState(card.entity);
  const [aliases, setAliases] = useState(card.aliases.join(", "));
  const [category, setCategory] = useState(card.category);
  const [scope, setScope] = useState(card.scope || "");
  const [error, setError] = useState("");
  const save = (e) => {
    e.preventDefault();
    if (!entity.trim()) { setError(t("memory.nameRequired")); return; }
    setError("");
    onSave({ entity: entity.trim(), aliases: aliases.split(",").map((a) => a.trim()).filter(Boolean), category,
      scope: scope.trim() || null });
  };
  return html`<form class="mem-fields" onSubmit=${save} data-testid="card-fields">
    <div class="field">
      <label for="card-entity">${t("memory.entity")}</label>
      <input autocomplete="off" id="card-entity" value=${entity} maxlength="200" onInput=${(e) => setEntity(e.currentTarget.value)}
        aria-invalid=${error ? "true" : undefined} aria-describedby=${error ? "card-entity-error" : undefined} />
      ${error ? html`<p class="field-error" id="card-entity-error" role="alert">${error}</p>` : null}
    </div>
    <div class="field">
      <label for="card-aliases">${t("memory.aliases")}</label>
      <input autocomplete="off" id="card-aliases" value=${aliases} onInput=${(e) => setAliases(e.currentTarget.value)}
        aria-describedby="card-aliases-help" />
      <p class="help" id="card-aliases-help">${t("memory.aliasesHelp")}</p>
    </div>
    <div class="mem-fields-row">
      <div class="field">
        <label for="card-category">${t("memory.category")}</label>
        <select id="card-category" value=${category} onChange=${(e) => setCategory(e.currentTarget.value)}>
          ${CATEGORIES.map((c) => html`<option value=${c}>${t(`memory.cat.${c}`)}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="card-scope">${t("memory.scope")}</label>
        <input autocomplete="off" id="card-scope" value=${scope} maxlength="60" onInput=${(e) => setScope(e.currentTarget.value)}
          aria-describedby="card-scope-help" placeholder=${t("memory.scopeGlobal")} />
      </div>
    </div>
    <p class="help" id="card-scope-help">${t("memory.scopeHelp")}</p>
    <div class="row end"><button type="submit" class="button" disabled=${busy} data-action="save-card">
      ${t("memory.saveFields")}</button></div>
  </form>`;
}

function SentenceRow({ sentence, busy, onEdit, onRemove, onEvidence }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(sentence.text);
  const id = `sentence-${sentence.index}`;
  const evidence = sentence.evidence;
  const submit = (e) => { e.preventDefault(); setEditing(false); onEdit(text); };
  return html`<li class="mem-sentence" data-testid="sentence">
    ${editing ? html`<form class="mem-sentence-edit" onSubmit=${submit}>
        <label class="visually-hidden" for=${id}>${t("memory.sentenceLabel", { n: sentence.index + 1 })}</label>
        <textarea autocomplete="off" id=${id} rows="2" value=${text} onInput=${(e) => setText(e.currentTarget.value)}
          onKeyDown=${(e) => { if (e.key === "Escape") { e.stopPropagation(); e.preventDefault(); setEditing(false); } }}></textarea>
        <div class="row end">
          <button type="button" class="button small" onClick=${() => { setText(sentence.text); setEditing(false); }}>
            ${t("common.cancel")}</button>
          <button type="submit" class="button small primary" disabled=${busy} data-action="save-sentence">
            ${t("common.save")}</button>
        </div>
      </form>`
      : html`<div class="mem-sentence-text">${sentence.text}</div>`}
    <div class="mem-sentence-meta small muted">
      <span>${t("memory.noted", { date: when(sentence.noted_at) })} · ${t(`memory.origin.${sentence.origin}`)}</span>
      ${evidence ? (evidence.exists
        ? html`<button type="button" class="link-button" onClick=${onEvidence} data-action="evidence">
            ${t("memory.evidence")}${evidence.conversation_title ? ` (${evidence.conversation_title})` : ""}</button>`
        : html`<span>${t("memory.evidenceGone")}</span>`) : null}
    </div>
    ${editing ? null : html`<div class="mem-sentence-actions">
      <button type="button" class="icon-button small" onClick=${() => setEditing(true)} data-action="edit-sentence"
        aria-label=${`${t("memory.editSentence")} ${sentence.index + 1}`}><${Icon} name="pencil" size=${16} /></button>
      <button type="button" class="icon-button small" onClick=${onRemove} disabled=${busy} data-action="remove-sentence"
        aria-label=${`${t("memory.removeSentence")} ${sentence.index + 1}`}><${Icon} name="trash" size=${16} /></button>
    </div>`}
  </li>`;
}

function AddSentence({ busy, onAdd }) {
  const [text, setText] = useState("");
  const submit = (e) => {
    e.preventDefault();
    if (!text.trim()) return;
    onAdd(text.trim());
    setText("");
  };
  return html`<form class="mem-add" onSubmit=${submit}>
    <label class="visually-hidden" for="add-sentence">${t("memory.addSentence")}</label>
    <input autocomplete="off" id="add-sentence" value=${text} placeholder=${t("memory.addSentencePlaceholder")}
      onInput=${(e) => setText(e.currentTarget.value)} />
    <button type="submit" class="button" disabled=${busy || !text.trim()} data-action="add-sentence">
      <${Icon} name="plus" />${t("memory.add")}</button>
  </form>`;
}

function MergePicker({ card, onMerged }) {
  const { api } = useApp();
  const mem = useMemoryApi(api);
  const [query, setQuery] = useState("");
  const [items, setItems] = useState([]);
  const [error, setError] = useState("");
  useEffect(() => {
    const timer = setTimeout(async () => {
      const list = await mem.listCards({ text: query });
      setItems(list.filter((c) => c.id !== card.id).slice(0, 8));
    }, 150);
    return () => clearTimeout(timer);
  }, [query]);
  const merge = async (other) => {
    try { onMerged(await mem.mergeCards(card.id, other.id)); } catch (err) { setError(errorMessage(err)); }
  };
  return html`<div class="mem-merge panel" role="group" aria-label=${t("memory.mergeTitle", { entity: card.entity })}>
    <label for="merge-search">${t("memory.mergeSearch")}</label>
    <input autocomplete="off" id="merge-search" type="search" value=${query} onInput=${(e) => setQuery(e.currentTarget.value)} />
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    <ul class="mem-merge-list">${items.map((c) => html`<li key=${c.id}>
      <span><${CategoryDot} category=${c.category} /> ${c.entity}</span>
      <button type="button" class="button small" onClick=${() => merge(c)} data-action="merge-with">
        ${t("memory.mergeDo")}</button></li>`)}</ul>
  </div>`;
}
