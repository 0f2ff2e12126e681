// The first run (issue 18): before any remote provider is added, the chat offers to connect one (OpenAI,
// Anthropic, any OpenAI-compatible address: Ollama, LM Studio, llama.cpp's server) or to use the offline
// model, said for what it is. The provider added and tested becomes the default (py-worker decides).
import { html, useEffect, useState } from "../lib.js";
import { t, formatBytes } from "../i18n.js";
import { useApp } from "../app.js";
import { Icon } from "./icons.js";
import { downloadModel, modelStates, onModelsChange } from "../downloads.js";
import { ProviderForm } from "../screens/providers.js";

const LOCAL_GROUP = "smollm2";

/** Whether the chat shows the first run: no remote provider yet, and no choice made. */
export function needsOnboarding(providers, settings) {
  return !settings.onboarded && !providers.some((p) => p.kind !== "local");
}

export function Onboarding() {
  const { updateSettings, toast } = useApp();
  const [form, setForm] = useState(null); // null | {kind, preset}
  const [offlineSize, setOfflineSize] = useState(null);
  const [download, setDownload] = useState(null); // null | {loaded, total} | {error}
  useEffect(() => {
    modelStates().then((states) => setOfflineSize(states[LOCAL_GROUP]?.bytes ?? null), () => {});
    return onModelsChange((group, progress) => {
      if (group === LOCAL_GROUP && progress) setDownload((d) => (d && !d.error ? { ...progress } : d));
    });
  }, []);

  // The offline model is downloaded here, with its progress, before the first run ends: a message sent
  // to it before that would only be told to download it.
  const offline = async () => {
    if (download && !download.error) return;
    setDownload({ loaded: 0, total: offlineSize || 0 });
    try {
      const states = await modelStates().catch(() => ({}));
      if (states[LOCAL_GROUP] && states[LOCAL_GROUP].state !== "ready") await downloadModel(LOCAL_GROUP);
    } catch (err) {
      setDownload({ error: err?.kind || "network" });
      return;
    }
    await updateSettings({ onboarded: true, default_provider: "local" });
    toast(t("onboard.offlineChosen"));
  };
  const later = () => updateSettings({ onboarded: true });

  const choice = (id, icon, title, help, onClick) => html`<li>
    <button type="button" class="onboard-choice" onClick=${onClick} data-onboard=${id}
        aria-describedby=${`onboard-${id}-help`}>
      <${Icon} name=${icon} size=${22} />
      <span class="onboard-choice-text">
        <strong>${title}</strong>
        <span class="small muted" id=${`onboard-${id}-help`}>${help}</span>
      </span>
      <${Icon} name="chevron" size=${18} />
    </button>
  </li>`;

  return html`<section class="onboarding" aria-labelledby="onboard-title" data-testid="onboarding">
    <h2 id="onboard-title">${t("onboard.title")}</h2>
    <p class="muted">${t("onboard.lead")}</p>
    <ul class="onboard-choices" aria-label=${t("onboard.options")}>
      ${choice("openai", "plug", t("onboard.openai"), t("onboard.openaiHelp"), () => setForm({ kind: "openai" }))}
      ${choice("anthropic", "plug", t("onboard.anthropic"), t("onboard.anthropicHelp"), () => setForm({ kind: "anthropic" }))}
      ${choice("compatible", "plug", t("onboard.compatible"), t("onboard.compatibleHelp"), () => setForm({ kind: "compatible" }))}
      ${choice("offline", "shield", t("onboard.offline"),
        `${t("onboard.offlineHelp")}${offlineSize ? ` (${formatBytes(offlineSize)})` : ""}.`, offline)}
    </ul>
    ${download && !download.error ? html`<div class="onboard-download" data-testid="onboard-download">
        <progress max=${download.total || 1} value=${download.loaded || 0} aria-labelledby="onboard-download-label"></progress>
        <p class="small muted" id="onboard-download-label" role="status">${t("onboard.downloading", {
          loaded: formatBytes(download.loaded || 0), total: formatBytes(download.total || offlineSize || 0) })}</p>
      </div>` : null}
    ${download?.error ? html`<p class="small field-error" role="alert">${t(`models.error.${download.error}`) === `models.error.${download.error}`
      ? t("models.error.network") : t(`models.error.${download.error}`)}</p>` : null}
    <p class="small muted"><button type="button" class="link-button" onClick=${later} data-onboard="later">
      ${t("onboard.later")}</button> ${t("onboard.laterHint")}</p>
    ${form ? html`<${ProviderForm} initialKind=${form.kind} onClose=${() => setForm(null)} />` : null}
  </section>`;
}
