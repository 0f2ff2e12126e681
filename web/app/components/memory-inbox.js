// The review inbox ("À revoir"): cards the assistant proposed (Confirm, Edit, Reject) and merge
// suggestions (Merge, Dismiss), with the setting that decides how proposed cards are injected.
import { html, useEffect, useState } from "../lib.js";
import { t } from "../i18n.js";
import { useApp } from "../app.js";
import { Icon } from "./icons.js";
import { errorMessage } from "./ui.js";
import { Sheet } from "./memory-sheet.js";
import { CategoryDot, StatusBadge } from "./memory-card.js";
import { memoryChanged, onMemoryChanged, useMemoryApi } from "./memory-api.js";
import { ENUMS } from "../contract.js";

export const INJECTION_POLICIES = ENUMS.injectionPolicy; // memory/model.py ProposedInjection

export function InjectionChoice({ idPrefix = "inj" }) {
  const { settings, updateSettings, toast } = useApp();
  const value = settings.proposed_injection || "mention";
  const set = async (v) => {
    try { await updateSettings({ proposed_injection: v }); toast(t("settings.saved")); } catch (err) { toast(errorMessage(err)); }
  };
  return html`<fieldset class="field choice" data-testid="injection-choice">
    <legend>${t("memory.injection")}</legend>
    <div class="segmented">
      ${INJECTION_POLICIES.map((v) => html`<label key=${v} class=${value === v ? "selected" : ""}>
        <input type="radio" name=${`${idPrefix}-policy`} value=${v} checked=${value === v} onChange=${() => set(v)} />
        <span>${t(`memory.injection.${v}`)}</span></label>`)}
    </div>
    <p class="help">${t("memory.injectionHelp")}</p>
  </fieldset>`;
}

export function Inbox({ onClose, onOpenCard }) {
  const { api, toast } = useApp();
  const mem = useMemoryApi(api);
  const [inbox, setInbox] = useState(null);
  const [error, setError] = useState("");
  const load = async () => {
    try { setInbox(await mem.reviewInbox()); } catch (err) { setError(errorMessage(err)); }
  };
  useEffect(() => { load(); return onMemoryChanged(() => load()); }, []);
  const act = async (fn, message) => {
    try {
      await fn();
      if (message) toast(message);
      memoryChanged();
      await load();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const cards = inbox?.cards || [];
  const suggestions = inbox?.suggestions || [];
  return html`<${Sheet} title=${t("memory.inboxTitle")} onClose=${onClose} className="inbox-sheet" testId="inbox">
    <p class="muted small">${t("memory.inboxIntro")}</p>
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    ${inbox && !cards.length && !suggestions.length ? html`<p class="mem-empty">${t("memory.inboxEmpty")}</p>` : null}
    ${cards.length ? html`<section aria-labelledby="inbox-cards" class="mem-section">
      <h3 id="inbox-cards">${t("memory.inboxCards")} <span class="badge">${cards.length}</span></h3>
      <ul class="inbox-list">${cards.map((c) => html`<li key=${c.id} class="inbox-item" data-card-id=${c.id}>
        <div class="inbox-item-head">
          <${CategoryDot} category=${c.category} /><strong>${c.entity}</strong><${StatusBadge} status=${c.status} />
        </div>
        <p class="inbox-facts">${c.facts}</p>
        <div class="inbox-actions">
          <button type="button" class="button primary" data-action="inbox-confirm"
            onClick=${() => act(() => mem.confirmCard(c.id), t("memory.confirmed"))}><${Icon} name="check" />${t("memory.confirm")}</button>
          <button type="button" class="button" data-action="inbox-edit" onClick=${() => onOpenCard(c.id)}>
            <${Icon} name="pencil" />${t("memory.edit")}</button>
          <button type="button" class="button danger" data-action="inbox-reject"
            onClick=${() => act(() => mem.rejectCard(c.id), t("memory.rejected"))}>${t("memory.reject")}</button>
        </div>
      </li>`)}</ul>
    </section>` : null}
    ${suggestions.length ? html`<section aria-labelledby="inbox-suggestions" class="mem-section">
      <h3 id="inbox-suggestions">${t("memory.inboxSuggestions")} <span class="badge">${suggestions.length}</span></h3>
      <ul class="inbox-list">${suggestions.filter((s) => s.keep && s.drop).map((s) => html`<li key=${s.key} class="inbox-item">
        <p>${t("memory.suggestion", { a: s.keep.entity, b: s.drop.entity })}</p>
        <div class="inbox-actions">
          <button type="button" class="button primary" data-action="inbox-merge"
            onClick=${() => act(() => mem.mergeCards(s.keep.id, s.drop.id), t("memory.merged"))}>${t("memory.mergeThese")}</button>
          <button type="button" class="button" data-action="inbox-dismiss"
            onClick=${() => act(() => mem.dismissSuggestion(s.keep.id, s.drop.id), t("memory.dismissed"))}>${t("memory.dismiss")}</button>
        </div>
      </li>`)}</ul>
    </section>` : null}
    <${InjectionChoice} idPrefix="inbox" />
  <//>`;
}
