// The Mémoire page: the graph (laptops) and the list with search and filters, the card panel, the
// review inbox, refusals, the journal and the profile; the one-time proposal of automatic memory.
// Everything here reads the worker's local state: it works offline.
import { html, useEffect, useRef, useState } from "../lib.js";
import { t, formatDate } from "../i18n.js";
import { useApp } from "../app.js";
import { Icon } from "../components/icons.js";
import { Dialog, errorMessage, useMediaQuery } from "../components/ui.js";
import { CATEGORIES, CardPanel, CategoryDot, StatusBadge, when } from "../components/memory-card.js";
import { Inbox } from "../components/memory-inbox.js";
import { Graph } from "../components/graph.js";
import { memoryChanged, onMemoryChanged, onMemoryOrIndexChanged, useMemoryApi } from "../components/memory-api.js";
import { emit } from "../store.js";
import { journalText } from "../labels.js";
import { LIMITS } from "../contract.js";

const VIEWS = ["graph", "list", "refusals", "journal", "profile"];
// Narrower than this the graph's labels overlap and taps miss: the list stands in for it.
const GRAPH_MIN_WIDTH = 700;
const SEARCH_DEBOUNCE_MS = 150;
const RECENT_CHOICES = [1, 7, 30];
const PROFILE_MAX = LIMITS.maxProfileChars; // memory/model.py MAX_PROFILE_CHARS

const NARROW_QUERY = `(max-width: ${GRAPH_MIN_WIDTH}px)`;

function narrow() {
  return typeof matchMedia === "function" && matchMedia(NARROW_QUERY).matches;
}

export function MemoryScreen() {
  const { api, updateSettings, toast } = useApp();
  const mem = useMemoryApi(api);
  const [overview, setOverview] = useState(null);
  const [view, setView] = useState(narrow() ? "list" : "graph");
  const [openId, setOpenId] = useState(null);
  const [inboxOpen, setInboxOpen] = useState(false);
  const [creating, setCreating] = useState(false);

  const load = async () => { try { setOverview(await mem.memoryOverview()); } catch { /* locked meanwhile */ } };
  useEffect(() => {
    emit("memory-visited");
    load();
    return onMemoryOrIndexChanged(() => load());
  }, []);

  const answerProposal = async (accept) => {
    try {
      if (accept) { await updateSettings({ auto_extract: true }); toast(t("memory.proposalOn")); }
      await mem.markMemoryProposalSeen();
      await load();
    } catch (err) { toast(errorMessage(err)); }
  };
  const inboxCount = overview ? overview.inbox + overview.suggestions : 0;

  return html`<div class="page memory" data-testid="memory-page">
    <header class="page-head">
      <div class="mem-title">
        <h1>${t("memory.title")}</h1>
        ${overview ? html`<span class="muted">${t("memory.counts", { n: overview.cards })}</span>` : null}
        ${overview?.indexed ? html`<span class="muted" data-testid="semantic-status">· ${
          t("memory.indexed", { n: overview.indexed })}</span>` : null}
      </div>
      <div class="row">
        <button type="button" class=${`button ${inboxCount ? "primary" : ""}`} onClick=${() => setInboxOpen(true)}
          data-action="open-inbox">${t("memory.inboxCount", { n: inboxCount })}</button>
        <button type="button" class="button" onClick=${() => setCreating(true)} data-action="new-card">
          <${Icon} name="plus" />${t("memory.new")}</button>
      </div>
    </header>
    <p class="muted mem-intro">${t("memory.intro")}</p>
    ${overview && !overview.auto_extract && !overview.proposal_seen ? html`<section class="panel mem-proposal"
        aria-labelledby="mem-proposal-title" data-testid="auto-extract-proposal">
      <h2 id="mem-proposal-title">${t("memory.proposalTitle")}</h2>
      <p>${t("memory.proposalBody")}</p>
      <div class="row">
        <button type="button" class="button primary" onClick=${() => answerProposal(true)} data-action="proposal-yes">
          ${t("memory.proposalYes")}</button>
        <button type="button" class="button" onClick=${() => answerProposal(false)} data-action="proposal-no">
          ${t("memory.proposalNo")}</button>
      </div>
    </section>` : null}
    <${Tabs} view=${view} setView=${setView} overview=${overview} />
    <div class="mem-view" role="tabpanel" id=${`mem-panel-${view}`} aria-labelledby=${`mem-tab-${view}`}>
      ${view === "graph" ? html`<${GraphView} onOpen=${setOpenId} overview=${overview} />` : null}
      ${view === "list" ? html`<${CardList} onOpen=${setOpenId} overview=${overview} />` : null}
      ${view === "refusals" ? html`<${Refusals} />` : null}
      ${view === "journal" ? html`<${Journal} />` : null}
      ${view === "profile" ? html`<${Profile} />` : null}
    </div>
    ${inboxOpen ? html`<${Inbox} onClose=${() => setInboxOpen(false)}
        onOpenCard=${(id) => { setInboxOpen(false); setOpenId(id); }} />` : null}
    ${openId ? html`<${CardPanel} key=${openId} cardId=${openId} onClose=${() => setOpenId(null)} onOpen=${setOpenId} />` : null}
    ${creating ? html`<${NewCard} onClose=${() => setCreating(false)}
        onCreated=${(card) => { setCreating(false); setOpenId(card.id); }} />` : null}
  </div>`;
}

function Tabs({ view, setView, overview }) {
  const refs = useRef({});
  const onKey = (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1, Home: -VIEWS.length, End: VIEWS.length }[e.key];
    if (!step) return;
    e.preventDefault();
    const next = VIEWS[Math.max(0, Math.min(VIEWS.length - 1, VIEWS.indexOf(view) + step))];
    setView(next);
    refs.current[next]?.focus();
  };
  const count = { refusals: overview?.refusals };
  return html`<div class="mem-tabs" role="tablist" aria-label=${t("memory.views")} onKeyDown=${onKey}>
    ${VIEWS.map((v) => html`<button key=${v} type="button" role="tab" id=${`mem-tab-${v}`} ref=${(el) => { refs.current[v] = el; }}
        aria-selected=${view === v ? "true" : "false"} aria-controls=${`mem-panel-${v}`} tabindex=${view === v ? 0 : -1}
        class=${`mem-tab ${view === v ? "active" : ""}`} onClick=${() => setView(v)} data-view=${v}>
      ${t(`memory.view.${v}`)}${count[v] ? html` <span class="badge">${count[v]}</span>` : null}
    </button>`)}
  </div>`;
}

function GraphView({ onOpen, overview }) {
  const { api } = useApp();
  const mem = useMemoryApi(api);
  const [data, setData] = useState(null);
  const small = useMediaQuery(NARROW_QUERY);
  useEffect(() => {
    const load = async () => { try { setData(await mem.memoryGraph()); } catch { /* locked */ } };
    load();
    return onMemoryOrIndexChanged(() => load());
  }, []);
  if (small) {
    return html`<div><p class="muted small mem-note">${t("memory.graphSmall")}</p>
      <${CardList} onOpen=${onOpen} overview=${overview} /></div>`;
  }
  if (!data) return html`<p class="muted">${t("common.loading")}</p>`;
  if (!data.nodes.length) return html`<p class="mem-empty">${t("memory.graphEmpty")}</p>`;
  return html`<${Graph} data=${data} onOpen=${onOpen} />`;
}

function CardList({ onOpen, overview }) {
  const { api } = useApp();
  const mem = useMemoryApi(api);
  const [filter, setFilter] = useState({ text: "", category: "", status: "", scope: "", recent_days: 0 });
  const [items, setItems] = useState(null);
  const [error, setError] = useState("");
  const set = (patch) => setFilter((f) => ({ ...f, ...patch }));
  useEffect(() => {
    const load = async () => {
      try { setItems(await mem.listCards({ ...filter, recent_days: Number(filter.recent_days) || 0 })); setError(""); }
      catch (err) { setError(errorMessage(err)); }
    };
    const timer = setTimeout(load, filter.text ? SEARCH_DEBOUNCE_MS : 0);
    const off = onMemoryChanged(() => load());
    return () => { clearTimeout(timer); off(); };
  }, [filter]);
  const scopes = overview?.scopes || [];
  return html`<div class="mem-list-view">
    <div class="mem-search" role="search">
      <label for="mem-search" class="visually-hidden">${t("memory.search")}</label>
      <${Icon} name="search" />
      <input autocomplete="off" id="mem-search" type="search" value=${filter.text} placeholder=${t("memory.searchPlaceholder")}
        onInput=${(e) => set({ text: e.currentTarget.value })} />
    </div>
    <fieldset class="mem-filters">
      <legend class="visually-hidden">${t("memory.filters")}</legend>
      <label>${t("memory.filter.category")}
        <select value=${filter.category} onChange=${(e) => set({ category: e.currentTarget.value })} data-filter="category">
          <option value="">${t("memory.filter.all")}</option>
          ${CATEGORIES.map((c) => html`<option value=${c}>${t(`memory.cat.${c}`)}</option>`)}
        </select></label>
      <label>${t("memory.filter.status")}
        <select value=${filter.status} onChange=${(e) => set({ status: e.currentTarget.value })} data-filter="status">
          <option value="">${t("memory.filter.all")}</option>
          ${["proposed", "confirmed", "rejected"].map((s) => html`<option value=${s}>${t(`memory.status.${s}`)}</option>`)}
          <option value="any">${t("memory.filter.withRejected")}</option>
        </select></label>
      <label>${t("memory.filter.scope")}
        <select value=${filter.scope} onChange=${(e) => set({ scope: e.currentTarget.value })} data-filter="scope">
          <option value="">${t("memory.filter.allScopes")}</option>
          <option value="global">${t("memory.filter.global")}</option>
          ${scopes.map((s) => html`<option value=${s}>${s}</option>`)}
        </select></label>
      <label>${t("memory.filter.recent")}
        <select value=${String(filter.recent_days)} onChange=${(e) => set({ recent_days: Number(e.currentTarget.value) })}
          data-filter="recent">
          <option value="0">${t("memory.filter.anyTime")}</option>
          ${RECENT_CHOICES.map((n) => html`<option value=${String(n)}>${t("memory.filter.days", { n })}</option>`)}
        </select></label>
    </fieldset>
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    ${items && !items.length ? html`<p class="mem-empty">${overview && !overview.cards && !filter.text
      ? t("memory.empty") : t("memory.noMatch")}</p>` : null}
    <ul class="mem-list" data-testid="card-list">
      ${(items || []).map((c) => html`<li key=${c.id}>
        <button type="button" class="mem-row" onClick=${() => onOpen(c.id)} data-card-id=${c.id}>
          <span class="mem-row-head">
            <${CategoryDot} category=${c.category} />
            <strong class="mem-row-entity">${c.entity}</strong>
            ${c.status !== "confirmed" ? html`<${StatusBadge} status=${c.status} />` : null}
            ${c.scope ? html`<span class="badge">${c.scope}</span>` : null}
          </span>
          <span class="mem-row-facts">${c.facts}</span>
          <span class="mem-row-meta small muted">${t(`memory.cat.${c.category}`)} · ${t("memory.updated", { date: formatDate(c.updated) })}</span>
        </button>
      </li>`)}
    </ul>
  </div>`;
}

function Refusals() {
  const { api, toast } = useApp();
  const mem = useMemoryApi(api);
  const [items, setItems] = useState(null);
  const load = async () => { try { setItems(await mem.listRefusals()); } catch { /* locked */ } };
  useEffect(() => { load(); return onMemoryChanged(() => load()); }, []);
  const lift = async (r) => {
    try { await mem.liftRefusal(r.entity_key, r.fact_key); toast(t("memory.lifted")); memoryChanged(); } catch (err) {
      toast(errorMessage(err));
    }
  };
  return html`<section class="mem-refusals" aria-labelledby="mem-refusals-title">
    <h2 id="mem-refusals-title" class="visually-hidden">${t("memory.refusals")}</h2>
    <p class="muted small">${t("memory.refusalsIntro")}</p>
    ${items && !items.length ? html`<p class="mem-empty">${t("memory.refusalsEmpty")}</p>` : null}
    <ul class="mem-plain-list" data-testid="refusals">${(items || []).map((r) => html`<li key=${`${r.entity_key}|${r.fact_key}`}
        class="mem-refusal">
      <div>
        <span class="badge">${t(`memory.refusal.${r.kind}`)}</span> <strong>${r.label}</strong>
        <div class="small muted">${t(`memory.refusal.${r.reason === "rejected" ? "rejected" : "deleted"}`, { date: when(r.created) })}</div>
      </div>
      <button type="button" class="button small" onClick=${() => lift(r)} data-action="lift-refusal">${t("memory.lift")}</button>
    </li>`)}</ul>
  </section>`;
}

function Journal() {
  const { api } = useApp();
  const mem = useMemoryApi(api);
  const [query, setQuery] = useState({ action: "", origin: "", text: "" });
  const [page, setPage] = useState(null);
  const [entries, setEntries] = useState([]);
  const load = async (offset = 0) => {
    try {
      const next = await mem.listJournal({ ...query, offset, limit: 50 });
      setPage(next);
      setEntries((old) => (offset ? [...old, ...next.entries] : next.entries));
    } catch { /* locked */ }
  };
  useEffect(() => {
    const timer = setTimeout(() => load(0), query.text ? SEARCH_DEBOUNCE_MS : 0);
    const off = onMemoryChanged(() => load(0));
    return () => { clearTimeout(timer); off(); };
  }, [query]);
  const set = (patch) => setQuery((q) => ({ ...q, ...patch }));
  return html`<section class="mem-journal-view" aria-labelledby="mem-journal-title">
    <h2 id="mem-journal-title" class="visually-hidden">${t("memory.journal")}</h2>
    <p class="muted small">${t("memory.journalIntro")}</p>
    <div class="mem-filters">
      <label>${t("memory.journalAction")}
        <select value=${query.action} onChange=${(e) => set({ action: e.currentTarget.value })} data-filter="action">
          <option value="">${t("memory.journalAll")}</option>
          ${(page?.actions || []).map((a) => html`<option value=${a}>${t(`memory.action.${a}`)}</option>`)}
        </select></label>
      <label>${t("memory.journalOrigin")}
        <select value=${query.origin} onChange=${(e) => set({ origin: e.currentTarget.value })} data-filter="origin">
          <option value="">${t("memory.journalAll")}</option>
          ${(page?.origins || []).map((o) => html`<option value=${o}>${t(`memory.jorigin.${o}`)}</option>`)}
        </select></label>
      <label class="grow">${t("memory.journalSearch")}
        <input autocomplete="off" type="search" value=${query.text} onInput=${(e) => set({ text: e.currentTarget.value })} id="journal-search" /></label>
    </div>
    ${page ? html`<p class="small muted" aria-live="polite">${t("memory.journalCount", { n: page.total })}</p>` : null}
    ${page && !entries.length ? html`<p class="mem-empty">${t("memory.journalEmpty")}</p>` : null}
    <ol class="mem-journal" data-testid="journal">${entries.map((e, i) => html`<li key=${i} class="mem-journal-entry" data-action=${e.action}>
      <div class="mem-journal-head">
        <strong>${t(`memory.action.${e.action}`)}</strong>
        ${e.entity ? html`<span>${e.entity}</span>` : null}
        <span class="small muted">${when(e.at)} · ${t(`memory.jorigin.${e.origin}`)}</span>
      </div>
      ${e.before ? html`<div class="mem-before small"><span class="visually-hidden">avant : </span>${journalText(e, "before")}</div>` : null}
      ${e.after ? html`<div class="mem-after small">${journalText(e, "after")}</div>` : null}
    </li>`)}</ol>
    ${page && entries.length < page.total ? html`<button type="button" class="button" onClick=${() => load(entries.length)}>
      ${t("memory.journalMore")}</button>` : null}
  </section>`;
}

function Profile() {
  const { api, toast } = useApp();
  const mem = useMemoryApi(api);
  const [text, setText] = useState(null);
  useEffect(() => { mem.getProfile().then(setText).catch(() => {}); }, []);
  const save = async (e) => {
    e.preventDefault();
    try { setText(await mem.setProfile(text)); toast(t("memory.profileSaved")); memoryChanged(); } catch (err) {
      toast(errorMessage(err));
    }
  };
  if (text === null) return html`<p class="muted">${t("common.loading")}</p>`;
  return html`<form class="panel mem-profile" onSubmit=${save}>
    <p class="muted small" id="profile-help">${t("memory.profileIntro")}</p>
    <div class="field">
      <label for="profile-text">${t("memory.profileLabel")}</label>
      <textarea autocomplete="off" id="profile-text" rows="8" maxlength=${PROFILE_MAX} value=${text} aria-describedby="profile-help profile-count"
        onInput=${(e) => setText(e.currentTarget.value)}></textarea>
      <p class="help" id="profile-count">${t("memory.chars", { n: text.length, max: PROFILE_MAX })}</p>
    </div>
    <div class="row end"><button type="submit" class="button primary" data-action="save-profile">${t("common.save")}</button></div>
  </form>`;
}

function NewCard({ onClose, onCreated }) {
  const { api } = useApp();
  const mem = useMemoryApi(api);
  const [entity, setEntity] = useState("");
  const [category, setCategory] = useState("personne");
  const [facts, setFacts] = useState("");
  const [error, setError] = useState("");
  const submit = async (e) => {
    e.preventDefault();
    if (!entity.trim()) { setError(t("memory.nameRequired")); return; }
    try { const card = await mem.createCard({ entity, category, facts }); memoryChanged(); onCreated(card); } catch (err) {
      setError(errorMessage(err));
    }
  };
  return html`<${Dialog} title=${t("memory.new")} onClose=${onClose}>
    <form class="stack" onSubmit=${submit}>
      <div class="field">
        <label for="new-entity">${t("memory.entity")}</label>
        <input autocomplete="off" id="new-entity" value=${entity} maxlength="200" onInput=${(e) => setEntity(e.currentTarget.value)}
          aria-invalid=${error ? "true" : undefined} aria-describedby=${error ? "new-entity-error" : undefined} />
        ${error ? html`<p class="field-error" id="new-entity-error" role="alert">${error}</p>` : null}
      </div>
      <div class="field">
        <label for="new-category">${t("memory.category")}</label>
        <select id="new-category" value=${category} onChange=${(e) => setCategory(e.currentTarget.value)}>
          ${CATEGORIES.map((c) => html`<option value=${c}>${t(`memory.cat.${c}`)}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="new-facts">${t("memory.sentences")}</label>
        <textarea autocomplete="off" id="new-facts" rows="3" value=${facts} onInput=${(e) => setFacts(e.currentTarget.value)}></textarea>
      </div>
      <div class="row end">
        <button type="button" class="button" onClick=${onClose}>${t("common.cancel")}</button>
        <button type="submit" class="button primary" data-action="create-card">${t("common.save")}</button>
      </div>
    </form>
  <//>`;
}
