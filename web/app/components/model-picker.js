// Which model answers a conversation (issue 18): the header's model button, and the dialog that picks a
// provider and one of the models it lists (OpenAI-compatible /v1/models, Anthropic's /v1/models, Ollama's
// /api/tags: py-worker asks through net-worker), with a typed name when the provider does not list them.
import { html, useEffect, useMemo, useRef, useState } from "../lib.js";
import { t, errorKey } from "../i18n.js";
import { Icon } from "./icons.js";
import { Dialog, Field, Spinner, errorMessage, useBusy } from "./ui.js";

// Past this many models the list gets a filter (OpenAI lists about a hundred).
const FILTER_FROM = 12;
// A provider's list, asked once per provider and unlock (a refused list is asked again next time).
const listed = new Map();

export function forgetModelLists() { listed.clear(); }

export function providerName(provider) {
  return !provider ? "" : provider.kind === "local" ? t("providers.localName") : provider.label;
}

/** The provider and the model answering `conv` (or a new conversation when `conv` is null). */
export function answering(conv, providers, settings) {
  const wanted = conv?.provider_id || settings.default_provider || "local";
  const provider = providers.find((p) => p.id === wanted) || providers.find((p) => p.kind === "local") || null;
  const local = !provider || provider.kind === "local";
  const model = local ? t("providers.localName") : (conv?.model || provider.model || "");
  return { provider, model, local };
}

/** The header's "which model answers" button: the model's name first, the provider's after it. */
export function ModelButton({ conv, providers, settings, onClick }) {
  const { provider, model, local } = answering(conv, providers, settings);
  const name = providerName(provider);
  // The name is the visible text with what it is said first (axe: label-content-name-mismatch).
  return html`<button type="button" class="model-button" onClick=${onClick} data-action="pick-model" data-for=${conv?.id || ""}
      title=${t("model.answering", { model, provider: name })} data-testid="answering-model">
    <span class="visually-hidden">${t("model.label")}</span>
    <span class="model-name">${model}</span>
    ${local ? null : html`<span class="model-provider">${name}</span>`}
    <${Icon} name="chevron" size=${16} />
  </button>`;
}

async function modelsOf(api, providerId) {
  if (listed.has(providerId)) return listed.get(providerId);
  let result;
  try { result = await api.listModels(providerId); } catch (err) { result = { ok: false, error: { message: errorMessage(err) } }; }
  if (result.ok) listed.set(providerId, result);
  return result;
}

function errorWords(error) {
  if (!error) return t("error.unknown");
  const key = errorKey(error);
  const known = t(key);
  return known === key ? error.message || t("error.unknown") : known;
}

/** The dialog: provider, then its listed models (filtered when many), or a typed name. */
export function ModelDialog({ api, conv, providers, settings, onClose, onPicked }) {
  const start = answering(conv, providers, settings);
  const [providerId, setProviderId] = useState(start.provider?.id || "local");
  const [listing, setListing] = useState(null); // null (asking) | {ok, models, names} | {ok:false, error}
  const [choice, setChoice] = useState(conv?.model || ""); // "" : the provider's own model
  const [typed, setTyped] = useState("");
  const [filter, setFilter] = useState("");
  const [error, setError] = useState("");
  const [run, busy] = useBusy();
  const provider = providers.find((p) => p.id === providerId);
  const local = !provider || provider.kind === "local";
  const firstRef = useRef(null);
  useEffect(() => firstRef.current?.focus(), []);

  useEffect(() => {
    if (local) { setListing({ ok: true, models: [], names: {} }); return undefined; }
    let alive = true;
    setListing(null);
    modelsOf(api, providerId).then((result) => { if (alive) setListing(result); });
    return () => { alive = false; };
  }, [providerId]);

  const models = listing?.ok ? listing.models || [] : [];
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return needle ? models.filter((m) => m.toLowerCase().includes(needle)
      || (listing.names?.[m] || "").toLowerCase().includes(needle)) : models;
  }, [listing, filter]);
  const listFailed = listing && !listing.ok;

  const chooseProvider = (id) => {
    setProviderId(id);
    setChoice("");
    setTyped("");
    setFilter("");
  };

  const save = (e) => {
    e.preventDefault();
    const model = local ? null : (typed.trim() || choice || null);
    run(async () => {
      try {
        const view = await onPicked({ provider_id: providerId, model });
        if (view) onClose();
      } catch (err) {
        setError(errorMessage(err));
      }
    });
  };

  const radio = (value, label, extra = null) => html`<li key=${value || "-"}>
    <input type="radio" id=${`model-${value || "default"}`} name="model-choice" value=${value}
      checked=${!typed.trim() && choice === value} onChange=${() => { setChoice(value); setTyped(""); }} />
    <label for=${`model-${value || "default"}`}><span class="mono">${label}</span>${extra}</label>
  </li>`;

  return html`<${Dialog} title=${t("model.pickTitle")} onClose=${onClose} className="model-dialog">
    <form class="stack" onSubmit=${save} novalidate data-testid="model-dialog">
      <${Field} id="model-provider" label=${t("model.provider")}>
        <select id="model-provider" ref=${firstRef} value=${providerId} onChange=${(e) => chooseProvider(e.currentTarget.value)}
          data-testid="provider-picker">
          ${providers.map((p) => html`<option key=${p.id} value=${p.id}>${providerName(p)}${
            p.kind !== "local" && p.model ? ` · ${p.model}` : ""}</option>`)}
        </select>
      <//>
      ${local ? html`<p class="small honest">${t("providers.localHonest")}</p>` : html`
        ${listing === null ? html`<p class="small" role="status"><${Spinner} /> ${t("model.listing")}</p>` : null}
        ${listFailed ? html`<p class="small field-error" role="status" data-testid="list-failed">
          ${t("model.listFailed", { error: errorWords(listing.error) })}</p>` : null}
        ${listing?.ok && !models.length ? html`<p class="small muted" role="status">${t("model.none")}</p>` : null}
        ${models.length > FILTER_FROM ? html`<div class="search model-filter">
            <${Icon} name="search" size=${18} />
            <label for="model-filter" class="visually-hidden">${t("model.filter")}</label>
            <input id="model-filter" type="search" value=${filter} placeholder=${t("model.filter")} autocomplete="off"
              onInput=${(e) => setFilter(e.currentTarget.value)} spellcheck="false" />
          </div>` : null}
        ${listing ? html`<fieldset class="field model-choices">
          <legend>${t("model.list")}</legend>
          <ul class="model-list" data-testid="model-list">
            ${radio("", t("model.providerDefault", { model: provider.model || "—" }))}
            ${shown.map((m) => radio(m, m, listing.names?.[m] ? html` <span class="muted small">${listing.names[m]}</span>` : null))}
            ${choice && !models.includes(choice) ? radio(choice, choice) : null}
          </ul>
          ${filter && !shown.length ? html`<p class="small muted">${t("model.noMatch")}</p>` : null}
        </fieldset>` : null}
        <${Field} id="model-typed" label=${t("model.manual")} help=${t("model.manualHelp")}>
          <input id="model-typed" value=${typed} onInput=${(e) => setTyped(e.currentTarget.value)} spellcheck="false"
            autocomplete="off" maxlength="200" aria-describedby="model-typed-help" />
        <//>`}
      ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
      <div class="row end">
        <button type="button" class="button" onClick=${onClose}>${t("common.cancel")}</button>
        <button type="submit" class="button primary" disabled=${busy} data-action="use-model">${t("model.use")}</button>
      </div>
    </form>
  <//>`;
}
