// Instructions and usage on the page (issue 18, items 4 and 6): a conversation's persona and system prompt
// (in its settings), the personas (Settings), what the instructions become on the wire, the tokens of each
// reply and of the conversation, the user's prices. py-worker decides (worker/instructions_api.py, reached
// through its `instructions` door); these components only show and ask.
import { html, useEffect, useState } from "../lib.js";
import { t, lang } from "../i18n.js";
import { useApp } from "../app.js";
import { Icon } from "./icons.js";
import { Dialog, Field, errorMessage, useBusy } from "./ui.js";
import { familyOf, kindLabel } from "./message.js";
import { bus, emit } from "../store.js";

export const personasApi = (api, method, args = []) => api.instructions(method, args);

/** The account's personas, asked again whenever one changes ("personas-changed" on the bus). */
export function usePersonas(api) {
  const [personas, setPersonas] = useState([]);
  useEffect(() => {
    let alive = true;
    const load = () => personasApi(api, "listPersonas").then((list) => { if (alive) setPersonas(list); }).catch(() => {});
    load();
    bus.addEventListener("personas-changed", load);
    return () => { alive = false; bus.removeEventListener("personas-changed", load); };
  }, [api]);
  return personas;
}

// ---- a conversation's instructions (its settings dialog) ---------------------------------------------

/** The persona select and the system prompt of the conversation settings; `value` {persona, system_prompt}. */
export function InstructionsFields({ convId, value, onChange }) {
  const { api } = useApp();
  const personas = usePersonas(api);
  const [preview, setPreview] = useState(null);
  const set = (patch) => { setPreview(null); onChange({ ...value, ...patch }); };
  const show = async () => {
    try {
      setPreview({ data: await personasApi(api, "previewInstructions", [convId, value]), error: "" });
    } catch (err) {
      setPreview({ data: null, error: errorMessage(err) });
    }
  };
  return html`<fieldset class="field instructions" data-testid="instructions">
    <legend>${t("instr.legend")}</legend>
    <${Field} id="conv-persona" label=${t("instr.persona")} help=${t("instr.personaHelp")}>
      <select id="conv-persona" value=${value.persona || ""} aria-describedby="conv-persona-help"
        onChange=${(e) => set({ persona: e.currentTarget.value || null })}>
        <option value="">${t("instr.personaNone")}</option>
        ${personas.map((p) => html`<option key=${p.id} value=${p.id}>${p.name}</option>`)}
      </select>
    <//>
    <${Field} id="conv-system-prompt" label=${t("instr.prompt")} help=${t("instr.promptHelp")}>
      <textarea autocomplete="off" id="conv-system-prompt" rows="4" value=${value.system_prompt}
        aria-describedby="conv-system-prompt-help" onInput=${(e) => set({ system_prompt: e.currentTarget.value })}></textarea>
    <//>
    <div class="row">
      <button type="button" class="button small" onClick=${show} data-action="preview-instructions">
        <${Icon} name="eye" size=${16} />${t("instr.preview")}</button>
    </div>
    ${preview ? html`<${InstructionsPreview} preview=${preview} />` : null}
  </fieldset>`;
}

/** The instructions as a send would mask them: each masked value marked by kind, its fake in the title. */
function InstructionsPreview({ preview }) {
  if (preview.error) return html`<p class="field-error" role="alert">${t("instr.previewFailed", { message: preview.error })}</p>`;
  const data = preview.data;
  if (!data?.text) return html`<p class="muted small" data-testid="instructions-preview">${t("instr.previewNone")}</p>`;
  const pieces = [];
  let at = 0;
  for (const span of data.spans) {
    if (span.start < at) continue;
    if (span.start > at) pieces.push(data.text.slice(at, span.start));
    pieces.push(html`<mark class=${`redacted fam-${familyOf(span.kind)}`} data-kind=${span.kind}
      title=${t("instr.masked", { kind: kindLabel(span.kind), fake: span.fake })}>${data.text.slice(span.start, span.end)}</mark>`);
    at = span.end;
  }
  if (at < data.text.length) pieces.push(data.text.slice(at));
  return html`<div class="instructions-preview" data-testid="instructions-preview">
    <p class="small muted">${t("instr.previewTitle")} · ${t("instr.previewMasked", { n: data.spans.length })}</p>
    <p class="user-text">${pieces}</p>
    <pre class="wire-text" data-testid="instructions-wire">${data.wire}</pre>
  </div>`;
}

// ---- the account's system prompt (Settings) ----------------------------------------------------------

/** Settings: the instructions every conversation of the account sends first, and what the model receives. */
export function AccountPromptPanel() {
  const { api, settings, updateSettings, toast } = useApp();
  const [text, setText] = useState(settings.system_prompt || "");
  const [preview, setPreview] = useState(null);
  const [error, setError] = useState("");
  useEffect(() => { setText(settings.system_prompt || ""); }, [settings.system_prompt]);
  const save = async (e) => {
    e.preventDefault();
    setError("");
    try {
      await updateSettings({ system_prompt: text });
      toast(t("accountPrompt.saved"));
    } catch (err) { setError(errorMessage(err)); }
  };
  const show = async () => {
    try {
      setPreview({ data: await personasApi(api, "previewAccountPrompt", [text]), error: "" });
    } catch (err) {
      setPreview({ data: null, error: errorMessage(err) });
    }
  };
  return html`<section class="panel" aria-labelledby="set-account-prompt" data-testid="account-prompt">
    <h2 id="set-account-prompt">${t("accountPrompt.title")}</h2>
    <p class="help">${t("accountPrompt.lead")}</p>
    <form class="stack" onSubmit=${save} autocomplete="off">
      <${Field} id="account-system-prompt" label=${t("accountPrompt.label")} help=${t("instr.promptHelp")}>
        <textarea id="account-system-prompt" autocomplete="off" rows="4" value=${text} maxlength="20000"
          aria-describedby="account-system-prompt-help"
          onInput=${(e) => { setPreview(null); setText(e.currentTarget.value); }}></textarea>
      <//>
      ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
      <div class="row">
        <button type="button" class="button" onClick=${show} data-action="preview-account-prompt">
          <${Icon} name="eye" size=${16} />${t("instr.preview")}</button>
        <button type="submit" class="button primary" data-action="save-account-prompt">${t("common.save")}</button>
      </div>
    </form>
    ${preview ? html`<${InstructionsPreview} preview=${preview} />` : null}
    ${preview?.data?.text ? html`<p class="help">${t("accountPrompt.fakesVary")}</p>` : null}
  </section>`;
}

// ---- personas (Settings) -----------------------------------------------------------------------------

export function PersonasPanel() {
  const { api, providers, toast } = useApp();
  const personas = usePersonas(api);
  const [editing, setEditing] = useState(null); // a persona, or {} for a new one
  const remove = async (p) => {
    await personasApi(api, "deletePersona", [p.id]);
    emit("personas-changed");
    toast(t("personas.deleted", { name: p.name }));
  };
  return html`<section class="panel" aria-labelledby="set-personas" data-testid="personas">
    <h2 id="set-personas">${t("personas.title")}</h2>
    <p class="help">${t("personas.lead")}</p>
    ${!personas.length ? html`<p class="muted">${t("personas.none")}</p>` : html`<ul class="persona-list">
      ${personas.map((p) => html`<li key=${p.id} class="persona" data-persona-id=${p.id}>
        <span class="persona-name">${p.name}</span>
        <span class="muted small persona-model">${modelLabel(p, providers)}</span>
        <span class="persona-actions">
          <button type="button" class="icon-button small" onClick=${() => setEditing(p)}
            aria-label=${t("personas.edit", { name: p.name })} data-action="edit-persona"><${Icon} name="pencil" size=${16} /></button>
          <button type="button" class="icon-button small" onClick=${() => remove(p)}
            aria-label=${t("personas.delete", { name: p.name })} data-action="delete-persona"><${Icon} name="trash" size=${16} /></button>
        </span>
      </li>`)}
    </ul>`}
    <div class="row">
      <button type="button" class="button" onClick=${() => setEditing({})} data-action="add-persona">
        <${Icon} name="plus" size=${16} />${t("personas.add")}</button>
    </div>
    ${editing ? html`<${PersonaForm} persona=${editing} providers=${providers} onClose=${() => setEditing(null)}
      onSaved=${(p) => { setEditing(null); emit("personas-changed"); toast(t("personas.saved", { name: p.name })); }} />` : null}
  </section>`;
}

function modelLabel(persona, providers) {
  if (!persona.provider) return "";
  const provider = providers.find((p) => p.id === persona.provider);
  return [persona.model, provider?.label].filter(Boolean).join(" · ");
}

function PersonaForm({ persona, providers, onClose, onSaved }) {
  const { api } = useApp();
  const [name, setName] = useState(persona.name || "");
  const [instructions, setInstructions] = useState(persona.instructions || "");
  const [provider, setProvider] = useState(persona.provider || "");
  const [model, setModel] = useState(persona.model || "");
  const [error, setError] = useState("");
  const [run, busy] = useBusy();
  const save = (e) => {
    e.preventDefault();
    run(async () => {
      try {
        onSaved(await personasApi(api, "savePersona", [{ id: persona.id || null, name, instructions,
          provider: provider || null, model: provider ? model : null }]));
      } catch (err) { setError(errorMessage(err)); }
    });
  };
  return html`<${Dialog} title=${persona.id ? t("personas.edit", { name: persona.name }) : t("personas.add")} onClose=${onClose}
      className="persona-dialog">
    <form class="stack" onSubmit=${save} data-testid="persona-form" autocomplete="off">
      <${Field} id="persona-name" label=${t("personas.name")}>
        <input id="persona-name" autocomplete="off" value=${name} maxlength="80" required
          onInput=${(e) => setName(e.currentTarget.value)} />
      <//>
      <${Field} id="persona-instructions" label=${t("personas.instructions")} help=${t("instr.promptHelp")}>
        <textarea id="persona-instructions" autocomplete="off" rows="6" value=${instructions}
          aria-describedby="persona-instructions-help" onInput=${(e) => setInstructions(e.currentTarget.value)}></textarea>
      <//>
      <${Field} id="persona-provider" label=${t("personas.provider")}>
        <select id="persona-provider" value=${provider} onChange=${(e) => setProvider(e.currentTarget.value)}>
          <option value="">${t("personas.providerNone")}</option>
          ${providers.map((p) => html`<option key=${p.id} value=${p.id}>${p.label || p.id}</option>`)}
        </select>
      <//>
      ${provider ? html`<${Field} id="persona-model" label=${t("personas.model")} help=${t("personas.modelHelp")}>
        <input id="persona-model" autocomplete="off" value=${model} maxlength="200" aria-describedby="persona-model-help"
          onInput=${(e) => setModel(e.currentTarget.value)} />
      <//>` : null}
      ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
      <div class="row end">
        <button type="button" class="button" onClick=${onClose}>${t("common.cancel")}</button>
        <button type="submit" class="button primary" disabled=${busy || !name.trim()} data-action="save-persona">
          ${t("common.save")}</button>
      </div>
    </form>
  <//>`;
}

// ---- usage -------------------------------------------------------------------------------------------

const number = (n) => new Intl.NumberFormat(lang()).format(n);

export function money(value, currency) {
  const digits = value !== 0 && Math.abs(value) < 0.01 ? 4 : 2;
  try {
    return new Intl.NumberFormat(lang(), { style: "currency", currency, minimumFractionDigits: digits,
      maximumFractionDigits: digits }).format(value);
  } catch {
    return `${value.toFixed(digits)} ${currency}`;
  }
}

/** A conversation's usage, asked again whenever its messages change (`key`: their ids and states). */
export function useUsage(api, convId, key) {
  const [usage, setUsage] = useState(null);
  useEffect(() => {
    if (!convId) { setUsage(null); return undefined; }
    let alive = true;
    personasApi(api, "conversationUsage", [convId]).then((u) => { if (alive) setUsage(u); }).catch(() => {});
    const again = () => personasApi(api, "conversationUsage", [convId]).then((u) => { if (alive) setUsage(u); })
      .catch(() => {});
    bus.addEventListener("prices-changed", again);
    return () => { alive = false; bus.removeEventListener("prices-changed", again); };
  }, [api, convId, key]);
  return usage;
}

/** The tokens of one reply, when its provider reported them, and its estimated cost when priced. */
export function ReplyUsage({ usage, currency }) {
  if (!usage) return null;
  const vars = { input: number(usage.input), output: number(usage.output) };
  return html`<p class="reply-usage small muted" data-testid="reply-usage" data-input=${usage.input}
      data-output=${usage.output} title=${t("usage.replyLabel", vars)}>
    <span>${t("usage.reply", vars)}${usage.cache_read ? ` (${t("usage.cached", { n: number(usage.cache_read) })})` : ""}</span>
    ${usage.cost != null ? html`<span class="reply-cost" data-testid="reply-cost"> · ${t("usage.cost", { cost: money(usage.cost, currency) })}</span>` : null}
  </p>`;
}

/** The conversation's total, every version included; nothing when no reply was counted. */
export function ConversationUsage({ usage }) {
  const total = usage?.total;
  if (!total || !total.replies) return null;
  const vars = { input: number(total.input), output: number(total.output) };
  return html`<p class="conversation-usage small muted" data-testid="conversation-usage" data-input=${total.input}
      data-output=${total.output}>
    ${t("usage.conversation", vars)}
    ${total.cost != null ? html` · <span data-testid="conversation-cost">${t("usage.conversationCost", { cost: money(total.cost, usage.currency) })}</span>` : null}
    ${total.unpriced && total.cost != null ? ` (${t("usage.unpriced", { n: total.unpriced })})` : null}
  </p>`;
}

/** Settings: the price of each model the user wants a cost for, and their currency. */
export function PricesPanel() {
  const { api, providers, toast } = useApp();
  const [rows, setRows] = useState(null);
  const [currency, setCurrency] = useState("USD");
  const [error, setError] = useState("");
  useEffect(() => {
    const load = () => personasApi(api, "usageSettings").then((s) => {
      setCurrency(s.currency);
      setRows(s.prices.map((p) => ({ provider: p.provider || "", model: p.model, input: String(p.input),
        output: String(p.output) })));
    }).catch((err) => setError(errorMessage(err)));
    load();
    bus.addEventListener("prices-changed", load); // an import may have added some
    return () => bus.removeEventListener("prices-changed", load);
  }, [api]);
  if (rows === null) return null;
  const change = (i, patch) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const save = async (e) => {
    e.preventDefault();
    setError("");
    const prices = rows.filter((r) => r.model.trim()).map((r) => ({ provider: r.provider || "", model: r.model.trim(),
      input: Number(r.input || 0), output: Number(r.output || 0) }));
    try {
      const saved = await personasApi(api, "setPrices", [prices, currency]);
      setCurrency(saved.currency);
      emit("prices-changed");
      toast(t("prices.saved"));
    } catch (err) { setError(errorMessage(err)); }
  };
  return html`<section class="panel" aria-labelledby="set-prices" data-testid="prices">
    <h2 id="set-prices">${t("prices.title")}</h2>
    <p class="help">${t("prices.lead")}</p>
    <form class="stack" onSubmit=${save} autocomplete="off">
      <${Field} id="price-currency" label=${t("prices.currency")}>
        <input id="price-currency" class="short" autocomplete="off" value=${currency} maxlength="3" required
          onInput=${(e) => setCurrency(e.currentTarget.value.toUpperCase())} />
      <//>
      ${!rows.length ? html`<p class="muted small">${t("prices.none")}</p>` : rows.map((r, i) => html`<div key=${i}
          class="price-row" data-testid="price-row">
        <div class="field"><label for=${`price-provider-${i}`}>${t("prices.provider")}</label>
          <select id=${`price-provider-${i}`} value=${r.provider} onChange=${(e) => change(i, { provider: e.currentTarget.value })}>
            <option value="">${t("prices.anyProvider")}</option>
            ${providers.filter((p) => p.kind !== "local").map((p) => html`<option key=${p.id} value=${p.id}>${p.label || p.id}</option>`)}
          </select></div>
        <div class="field"><label for=${`price-model-${i}`}>${t("prices.model")}</label>
          <input id=${`price-model-${i}`} autocomplete="off" value=${r.model} onInput=${(e) => change(i, { model: e.currentTarget.value })} /></div>
        <div class="field"><label for=${`price-in-${i}`}>${t("prices.input")}</label>
          <input id=${`price-in-${i}`} type="number" min="0" step="any" inputmode="decimal" value=${r.input}
            onInput=${(e) => change(i, { input: e.currentTarget.value })} /></div>
        <div class="field"><label for=${`price-out-${i}`}>${t("prices.output")}</label>
          <input id=${`price-out-${i}`} type="number" min="0" step="any" inputmode="decimal" value=${r.output}
            onInput=${(e) => change(i, { output: e.currentTarget.value })} /></div>
        <button type="button" class="icon-button small" onClick=${() => setRows(rows.filter((_, j) => j !== i))}
          aria-label=${t("prices.remove", { model: r.model || "?" })}><${Icon} name="trash" size=${16} /></button>
      </div>`)}
      ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
      <div class="row">
        <button type="button" class="button" onClick=${() => setRows([...rows, { provider: "", model: "", input: "", output: "" }])}
          data-action="add-price"><${Icon} name="plus" size=${16} />${t("prices.add")}</button>
        <button type="submit" class="button primary" data-action="save-prices">${t("prices.save")}</button>
      </div>
    </form>
  </section>`;
}
