// Settings: language, theme, auto-lock delay, default masking level and replacement mode, the account's
// system prompt, personas, prices, Mémoire, backup, offline model, shortcuts, account.
import { html, useState } from "../lib.js";
import { t, LANGS } from "../i18n.js";
import { useApp } from "../app.js";
import { errorMessage } from "../components/ui.js";
import { MemorySettingsPanel } from "../components/memory-settings.js";
import { OfflineSettingsPanel } from "../components/offline-settings.js";
import { BackupSettingsPanel } from "../components/backup-settings.js";
import { SyncSettingsPanel } from "../components/sync-settings.js";
import { AccountPromptPanel, PersonasPanel, PricesPanel } from "../components/instructions.js";
import { KeyboardPanel } from "../components/keyboard.js";

const AUTOLOCK_CHOICES = [0, 1, 5, 15, 30, 60, 240];
const THEMES = ["auto", "light", "dark"];
const LEVELS = ["standard", "renforce", "strict"];
const MODES = ["fake", "token"];

function Choice({ id, legend, value, options, onChange, help }) {
  return html`<fieldset class="field choice" id=${id}>
    <legend>${legend}</legend>
    <div class="segmented">
      ${options.map((o) => html`<label key=${o.value} class=${value === o.value ? "selected" : ""}>
        <input type="radio" name=${id} value=${o.value} checked=${value === o.value}
          onChange=${() => onChange(o.value)} />
        <span>${o.label}</span>
      </label>`)}
    </div>
    ${help ? html`<p class="help">${help}</p>` : null}
  </fieldset>`;
}

export function SettingsScreen() {
  const { settings, updateSettings, account, lock, toast } = useApp();
  const [error, setError] = useState("");
  const set = async (patch) => {
    setError("");
    try {
      await updateSettings(patch);
      toast(t("settings.saved"));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const autolock = Number(settings.autolock_minutes) || 0;
  return html`<div class="page settings">
    <header class="page-head"><h1>${t("settings.title")}</h1></header>
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}

    <section class="panel" aria-labelledby="set-appearance">
      <h2 id="set-appearance">${t("settings.appearance")}</h2>
      <${Choice} id="set-lang" legend=${t("settings.language")} value=${settings.lang || "fr"}
        options=${Object.entries(LANGS).map(([value, label]) => ({ value, label }))} onChange=${(v) => set({ lang: v })} />
      <${Choice} id="set-theme" legend=${t("settings.theme")} value=${settings.theme || "auto"}
        options=${THEMES.map((v) => ({ value: v, label: t(`settings.theme.${v}`) }))} onChange=${(v) => set({ theme: v })} />
    </section>

    <section class="panel" aria-labelledby="set-privacy">
      <h2 id="set-privacy">${t("settings.privacy")}</h2>
      <${Choice} id="set-level" legend=${t("settings.level")} value=${settings.level || "renforce"}
        options=${LEVELS.map((v) => ({ value: v, label: t(`settings.level.${v}`) }))} onChange=${(v) => set({ level: v })} />
      <${Choice} id="set-mode" legend=${t("settings.mode")} value=${settings.mode || "fake"}
        options=${MODES.map((v) => ({ value: v, label: t(`convsettings.mode.${v}`) }))} onChange=${(v) => set({ mode: v })}
        help=${t("settings.modeHelp")} />
    </section>

    <${AccountPromptPanel} />

    <${PersonasPanel} />

    <${PricesPanel} />

    <${MemorySettingsPanel} />

    <${BackupSettingsPanel} />

    <${SyncSettingsPanel} />

    <${OfflineSettingsPanel} />

    <section class="panel" aria-labelledby="set-security">
      <h2 id="set-security">${t("settings.security")}</h2>
      <div class="field">
        <label for="set-autolock">${t("settings.autolock")}</label>
        <select id="set-autolock" value=${String(autolock)} aria-describedby="set-autolock-help"
          onChange=${(e) => set({ autolock_minutes: Number(e.currentTarget.value) })}>
          ${[...new Set([...AUTOLOCK_CHOICES, autolock])].sort((a, b) => a - b).map((n) => html`<option value=${String(n)}>
            ${n ? t("settings.autolock.n", { n }) : t("settings.autolock.0")}</option>`)}
        </select>
        <p class="help" id="set-autolock-help">${t("settings.autolockHelp")}</p>
      </div>
    </section>

    <${KeyboardPanel} />

    <section class="panel" aria-labelledby="set-account">
      <h2 id="set-account">${t("settings.account")}</h2>
      <p>${t("settings.accountName", { label: account?.label || "" })}</p>
      <div class="row">
        <button type="button" class="button" onClick=${() => lock()}>${t("accounts.lock")}</button>
        <button type="button" class="button" onClick=${() => lock("")}>${t("accounts.switch")}</button>
      </div>
    </section>
  </div>`;
}
