// Providers: the bundled offline model (always there, labelled for what it is) and the remote ones
// the user adds — OpenAI, Anthropic, or any OpenAI-compatible base URL (Ollama, LM Studio presets).
import { html, useState, useRef, useEffect } from "../lib.js";
import { t, errorKey } from "../i18n.js";
import { useApp } from "../app.js";
import { originOf, providerOrigins } from "../workers.js";
import { Icon } from "../components/icons.js";
import { DEFAULT_BASE_URLS, PRESETS, PROVIDER_KINDS } from "../contract.js";
import { Confirm, Dialog, Field, describedBy, useBusy, errorMessage, Spinner } from "../components/ui.js";

// The kinds a user adds (the bundled model is always there), the default addresses and the local servers'
// presets: the engine's own (py/openmasq/contract.py, chat/codecs/models.py PRESETS), through the contract.
const KINDS = PROVIDER_KINDS.filter((kind) => kind !== "local");
const DEFAULT_URLS = DEFAULT_BASE_URLS;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function validBaseUrl(value) {
  try {
    const url = new URL(value);
    if (url.protocol === "https:") return true;
    return url.protocol === "http:" && (LOOPBACK.has(url.hostname) || url.hostname.endsWith(".localhost"));
  } catch {
    return false;
  }
}

function errorText(error) {
  if (!error) return "";
  const key = errorKey(error);
  const known = t(key);
  return known === key ? error.message || t("error.unknown") : `${known}${error.message ? ` (${error.message})` : ""}`;
}

export function ProvidersScreen() {
  const { api, providers, settings, reloadProviders, updateSettings, toast } = useApp();
  const [editing, setEditing] = useState(null); // null | {} (new) | provider
  const [removing, setRemoving] = useState(null);
  const [tests, setTests] = useState({}); // id -> {busy} | {ok, models} | {ok:false, error}
  const defaultId = settings.default_provider || "local";

  const test = async (p) => {
    setTests((s) => ({ ...s, [p.id]: { busy: true } }));
    let result;
    try { result = await api.listModels(p.id); } catch (err) { result = { ok: false, error: { message: errorMessage(err) } }; }
    setTests((s) => ({ ...s, [p.id]: result }));
    if (result.made_default) { // its first successful test after it was added (issue 18)
      await reloadProviders();
      toast(t("providers.madeDefault", { label: p.label }));
    }
  };

  const remove = async () => {
    await api.removeProvider(removing.id);
    setRemoving(null);
    await reloadProviders();
    toast(t("providers.removed"));
  };

  return html`<div class="page">
    <header class="page-head">
      <h1>${t("providers.title")}</h1>
      <button type="button" class="button primary" onClick=${() => setEditing({})} data-action="add-provider">
        <${Icon} name="plus" />${t("providers.add")}</button>
    </header>
    <p class="muted">${t("providers.intro")}</p>
    <ul class="cards">
      ${providers.map((p) => {
        const local = p.kind === "local";
        const result = tests[p.id];
        return html`<li key=${p.id} class="card provider" data-provider-id=${p.id}>
          <div class="card-main">
            <h2 class="card-title">${local ? t("providers.localName") : p.label}
              ${p.id === defaultId ? html`<span class="badge">${t("providers.default")}</span>` : null}</h2>
            <p class="muted small">${local ? t("providers.kind.local") : t(`providers.kind.${p.kind}`)}
              ${local ? null : html` · <span class="mono">${p.base_url}</span>`}
              ${p.model ? html` · ${p.model}` : null}
              ${local ? null : html` · ${p.has_key ? t("providers.hasKey") : t("providers.noKey")}`}</p>
            ${local ? html`<p class="small honest">${t("providers.localHonest")}</p>` : null}
            ${result?.busy ? html`<p class="small" role="status"><${Spinner} /> ${t("providers.testing")}</p>` : null}
            ${result && !result.busy ? html`<p class=${`small ${result.ok ? "ok" : "field-error"}`} role="status">
              ${result.ok ? `${t("providers.testOk")} — ${t("providers.modelsFound", { n: (result.models || []).length })}`
                : t("providers.testFailed", { error: errorText(result.error) })}</p>` : null}
          </div>
          <div class="card-actions">
            ${p.id !== defaultId ? html`<button type="button" class="button small" onClick=${() => updateSettings({ default_provider: p.id })}>
              ${t("providers.makeDefault")}</button>` : null}
            <button type="button" class="button small" onClick=${() => test(p)} disabled=${result?.busy}>${t("providers.test")}</button>
            ${local ? null : html`
              <button type="button" class="button small" onClick=${() => setEditing(p)}>${t("common.edit")}</button>
              <button type="button" class="button small danger" onClick=${() => setRemoving(p)}>${t("providers.remove")}</button>`}
          </div>
        </li>`;
      })}
    </ul>
    ${editing ? html`<${ProviderForm} provider=${editing.id ? editing : null} onClose=${() => setEditing(null)} />` : null}
    ${removing ? html`<${Confirm} title=${t("providers.removeTitle", { label: removing.label })} body=${t("providers.removeBody")}
        confirmLabel=${t("providers.remove")} danger onConfirm=${remove} onCancel=${() => setRemoving(null)} />` : null}
  </div>`;
}

/** Adds or edits a provider; also opened by the first run (components/onboarding.js) with `initialKind`. */
export function ProviderForm({ provider, onClose, initialKind = "openai" }) {
  const { api, providers, reloadProviders, toast, syncEgress } = useApp();
  const startKind = provider?.kind || initialKind;
  const [kind, setKind] = useState(startKind);
  const [label, setLabel] = useState(provider?.label || (startKind === "compatible" ? "" : t(`providers.kind.${startKind}`)));
  const [baseUrl, setBaseUrl] = useState(provider?.base_url || DEFAULT_URLS[startKind] || "");
  const [apiKey, setApiKey] = useState("");
  const [model, setModel] = useState(provider?.model || "");
  const [models, setModels] = useState([]);
  const [status, setStatus] = useState(null); // {ok, text}
  const [errors, setErrors] = useState(/** @type {Record<string, string>} */ ({}));
  const [run, busy] = useBusy();
  const widened = useRef(false);
  const first = useRef(null);
  useEffect(() => first.current?.focus(), []);
  // A test of an unsaved address widened net-worker's policy; closing without saving narrows it back.
  useEffect(() => () => { if (widened.current) syncEgress(providers); }, []);

  const chooseKind = (value) => {
    setKind(value);
    if (DEFAULT_URLS[value]) setBaseUrl(DEFAULT_URLS[value]);
    else if (Object.values(DEFAULT_URLS).includes(baseUrl)) setBaseUrl("");
    if (!label || KINDS.some((k) => t(`providers.kind.${k}`) === label)) setLabel(value === "compatible" ? "" : t(`providers.kind.${value}`));
  };

  const preset = (p) => {
    setKind("compatible");
    setBaseUrl(p.base_url);
    setLabel(p.label);
  };

  const spec = () => {
    const out = { kind, label: label.trim(), base_url: baseUrl.trim(), model: model.trim() };
    if (provider?.id) out.id = provider.id;
    if (apiKey.trim()) out.api_key = apiKey.trim();
    return out;
  };

  const check = (forSave) => {
    /** @type {Record<string, string>} */
    const found = {};
    if (!validBaseUrl(baseUrl.trim())) found.baseUrl = t("providers.urlInvalid");
    if (kind !== "compatible" && !apiKey.trim() && !provider?.has_key) found.apiKey = t("providers.keyRequired");
    if (forSave && !label.trim()) found.label = t("providers.labelRequired");
    if (forSave && !model.trim()) found.model = t("providers.modelRequired");
    setErrors(found);
    return !Object.keys(found).length;
  };

  const loadModels = () => {
    if (!check(false)) return;
    run(async () => {
      setStatus({ busy: true, text: t("providers.loadingModels") });
      const origin = originOf(baseUrl.trim());
      if (origin && !providerOrigins(providers).includes(origin)) {
        widened.current = true;
        await syncEgress([...providers, { kind, base_url: baseUrl.trim() }]);
      }
      let result;
      try { result = await api.testProvider(spec()); } catch (err) { result = { ok: false, error: { message: errorMessage(err) } }; }
      if (result.ok) {
        const list = result.models || [];
        setModels(list);
        if (!model && list.length) setModel(list[0]);
        setStatus({ ok: true, text: `${t("providers.testOk")} — ${t("providers.modelsFound", { n: list.length })}` });
      } else {
        setStatus({ ok: false, text: t("providers.testFailed", { error: errorText(result.error) }) });
      }
    });
  };

  const save = (e) => {
    e.preventDefault();
    if (!check(true)) return;
    run(async () => {
      try {
        const saved = await api.saveProvider(spec());
        widened.current = false;
        await reloadProviders();
        // Saved after a test that worked: it is the default now (py-worker decides, issue 18).
        toast(saved.made_default ? t("providers.madeDefault", { label: saved.label })
          : provider ? t("providers.saved") : t("providers.testToDefault"));
        onClose();
      } catch (err) {
        setErrors({ form: errorMessage(err) });
      }
    });
  };

  const keyLabel = kind === "compatible" ? t("providers.apiKeyOptional") : t("providers.apiKey");
  return html`<${Dialog} title=${provider ? t("providers.editTitle") : t("providers.addTitle")} onClose=${onClose}>
    <form class="stack" onSubmit=${save} novalidate>
      <${Field} id="prov-kind" label=${t("providers.kind")}>
        <select id="prov-kind" ref=${first} value=${kind} onChange=${(e) => chooseKind(e.currentTarget.value)}>
          ${KINDS.map((k) => html`<option value=${k}>${t(`providers.kind.${k}`)}</option>`)}
        </select>
      <//>
      ${kind === "compatible" ? html`<div class="presets" role="group" aria-label=${t("providers.presets")}>
        <span class="small muted">${t("providers.presetsLead")}</span>
        ${PRESETS.map((p) => html`<button type="button" class="chip" onClick=${() => preset(p)} data-preset=${p.id}>${p.label}</button>`)}
      </div>` : null}
      <${Field} id="prov-label" label=${t("providers.label")} error=${errors.label}>
        <input autocomplete="off" id="prov-label" value=${label} onInput=${(e) => setLabel(e.currentTarget.value)} maxlength="60"
          aria-invalid=${errors.label ? "true" : undefined} aria-describedby=${describedBy("prov-label", "", errors.label)} />
      <//>
      <${Field} id="prov-url" label=${t("providers.baseUrl")} help=${kind === "compatible" ? t("providers.baseUrlHelp") : ""}
        error=${errors.baseUrl}>
        <input id="prov-url" type="url" inputmode="url" value=${baseUrl} onInput=${(e) => setBaseUrl(e.currentTarget.value)}
          spellcheck="false" autocomplete="off" aria-invalid=${errors.baseUrl ? "true" : undefined}
          aria-describedby=${describedBy("prov-url", kind === "compatible", errors.baseUrl)} />
      <//>
      <${Field} id="prov-key" label=${keyLabel} help=${provider?.has_key ? t("providers.apiKeyKeep") : ""} error=${errors.apiKey}>
        <input id="prov-key" type="password" value=${apiKey} onInput=${(e) => setApiKey(e.currentTarget.value)}
          autocomplete="off" spellcheck="false" aria-invalid=${errors.apiKey ? "true" : undefined}
          aria-describedby=${describedBy("prov-key", provider?.has_key, errors.apiKey)} />
      <//>
      <div class="row">
        <button type="button" class="button" onClick=${loadModels} disabled=${busy} data-action="list-models">
          ${t("providers.loadModels")}</button>
        ${status ? html`<p class=${`small ${status.busy ? "" : status.ok ? "ok" : "field-error"}`} role="status">
          ${status.busy ? html`<${Spinner} /> ` : null}${status.text}</p>` : null}
      </div>
      ${models.length ? html`<${Field} id="prov-model-pick" label=${t("providers.modelPick")}>
        <select id="prov-model-pick" value=${models.includes(model) ? model : ""} onChange=${(e) => setModel(e.currentTarget.value)}>
          ${models.includes(model) ? null : html`<option value="">—</option>`}
          ${models.map((m) => html`<option value=${m}>${m}</option>`)}
        </select>
      <//>` : null}
      <${Field} id="prov-model" label=${models.length ? t("providers.modelManual") : t("providers.model")} error=${errors.model}>
        <input id="prov-model" value=${model} onInput=${(e) => setModel(e.currentTarget.value)} spellcheck="false"
          autocomplete="off" aria-invalid=${errors.model ? "true" : undefined}
          aria-describedby=${describedBy("prov-model", "", errors.model)} />
      <//>
      ${errors.form ? html`<p class="field-error" role="alert">${errors.form}</p>` : null}
      <div class="row end">
        <button type="button" class="button" onClick=${onClose}>${t("common.cancel")}</button>
        <button type="submit" class="button primary" disabled=${busy} data-action="save-provider">${t("common.save")}</button>
      </div>
    </form>
  <//>`;
}
