// The application shell: boot, the account gate, the navigation and the screens behind it.
// State that outlives a screen (account, settings, providers) lives here and reaches screens by context.
import { html, useEffect, useRef, useState, useCallback, createContext, useContext, Comlink } from "./lib.js";
import { t, initialLang, setLang, lang as currentLang } from "./i18n.js";
import { Workers, providerOrigins } from "./workers.js";
import { Icon } from "./components/icons.js";
import { chatState, emit, resetChatState } from "./store.js";
import { Toasts, ToastContext, useToasts, errorMessage } from "./components/ui.js";
import { BootScreen, FatalScreen } from "./screens/boot.js";
import { AccountsScreen } from "./screens/accounts.js";
import { ChatScreen } from "./screens/chat.js";
import { ProvidersScreen } from "./screens/providers.js";
import { SettingsScreen } from "./screens/settings.js";
import { AboutScreen } from "./screens/about.js";
import { MemoryScreen } from "./screens/memory.js";
import { MemoryIcon, MemoryNavExtra, useMemoryNav } from "./components/memory-nav.js";
import { MemoryGestures } from "./components/memory-gestures.js";
import { KeyboardLayer } from "./components/keyboard.js";
import { forgetModelLists } from "./components/model-picker.js";

export const AppContext = createContext(null);
export const useApp = () => useContext(AppContext);

const THEME_KEY = "openmasq.theme";
// A lock reloads the page (below); this session-only key carries the notice to show after it, and says
// that the remembered account must not be opened again by that reload.
const LOCKED_KEY = "openmasq.lockedNotice";
const THEMES = ["auto", "light", "dark"];
// Activity is reported at most this often: the idle lock counts in minutes.
const ACTIVITY_REPORT_MS = 20_000;
const ACTIVITY_EVENTS = ["pointerdown", "keydown", "wheel", "touchstart"];

export function applyTheme(theme) {
  const value = THEMES.includes(theme) ? theme : "auto";
  if (value === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = value;
  try { localStorage.setItem(THEME_KEY, value); } catch { /* display preference only */ }
}

function initialTheme() {
  try { return localStorage.getItem(THEME_KEY) || "auto"; } catch { return "auto"; }
}

// Each place has one name, the same in the side rail and the phone's bottom bar (issue 18: the bar said
// "Messages" and "Modèles" where the rail said "Discussions" and "Fournisseurs"), short enough for a sixth
// of a 320 px screen. `bar` (a shorter label for the bar only) stays possible, for no place today.
export const ROUTES = [
  { id: "chat", icon: "chat", label: "nav.chat" },
  { id: "memory", icon: "memory", label: "nav.memory" },
  { id: "providers", icon: "plug", label: "nav.providers" },
  { id: "settings", icon: "gear", label: "nav.settings" },
  { id: "about", icon: "info", label: "nav.about" },
];

export function App({ pyWorker = null }) {
  const earlyWorker = useRef(pyWorker); // spawned by main.js before this module loaded; used once
  const [phase, setPhase] = useState("boot");
  const [progress, setProgress] = useState({ stage: "workers" });
  const [fatal, setFatal] = useState(null);
  const [accounts, setAccounts] = useState([]);
  const [account, setAccount] = useState(null);
  const [settings, setSettings] = useState({});
  const [providers, setProviders] = useState([]);
  const [route, setRoute] = useState("chat");
  const [lockNotice, setLockNotice] = useState("");
  // The language is set before the first render: the boot screen is the first thing shown, in the browser's
  // language (or the one chosen before), not in the table's default.
  const [, setLangTick] = useState(() => setLang(initialLang()));
  const toasts = useToasts();
  const workersRef = useRef(null);
  const api = workersRef.current?.api;

  const changeLang = useCallback((value) => setLangTick(setLang(value)), []);

  useEffect(() => {
    applyTheme(initialTheme());
    boot();
    return () => workersRef.current?.terminate();
  }, []);

  async function boot() {
    const workers = new Workers();
    workersRef.current = workers;
    workers.onError = (message) => setFatal(message);
    try {
      workers.start(earlyWorker.current);
      earlyWorker.current = null;
      await workers.api.init({ lang: currentLang() });
      const booted = await workers.api.boot(Comlink.proxy((p) => setProgress({ ...p })));
      performance.mark("openmasq:worker-booted", { detail: booted.timings }); // read by bench/boot.py
      await workers.startModels();
      workers.connectNet().catch((err) => console.warn("net-worker not started", err));
      workers.api.setNoticeHandler(Comlink.proxy(onNotice)).catch(() => {});
      const list = await workers.api.listAccounts();
      setAccounts(list);
      const remembered = list.filter((a) => a.remembered);
      const lockedNotice = takeLockedNotice();
      if (lockedNotice !== null) setLockNotice(lockedNotice);
      if (lockedNotice === null && list.length === 1 && remembered.length === 1) {
        try {
          await workers.api.unlockRemembered(remembered[0].id);
          await enter(workers.api);
          return;
        } catch (err) {
          console.warn("remembered unlock failed", err);
        }
      }
      setPhase("accounts");
    } catch (err) {
      console.error(err);
      setFatal(errorMessage(err));
    }
  }

  function onNotice(notice) {
    if (notice?.type === "locked") afterLock(t("accounts.autoLocked"));
    else emit("notice", notice);
  }

  async function enter(apiRef = api) {
    const [current, s, provs] = await Promise.all([apiRef.current(), apiRef.getSettings(), apiRef.listProviders()]);
    setAccount(current);
    setSettings(s || {});
    if (s?.lang) changeLang(s.lang);
    if (s?.theme) applyTheme(s.theme);
    setProviders(provs || []);
    setRoute("chat");
    setLockNotice("");
    setPhase("main");
    syncEgress(provs || []);
  }

  async function syncEgress(provs) {
    try {
      await workersRef.current.setEgressOrigins(providerOrigins(provs));
    } catch (err) {
      console.warn("egress update failed", err);
    }
  }

  // Saving or testing a provider may also make it the default (py-worker decides): the settings follow.
  async function reloadProviders() {
    const [provs, s] = await Promise.all([api.listProviders(), api.getSettings()]);
    forgetModelLists(); // a provider's address or key may have changed: its list is asked again
    setProviders(provs);
    setSettings(s || {});
    await syncEgress(provs);
    return provs;
  }

  async function updateSettings(patch) {
    const next = await api.updateSettings(patch);
    const merged = next && typeof next === "object" ? next : { ...settings, ...patch };
    setSettings(merged);
    if ("lang" in patch) changeLang(patch.lang);
    if ("theme" in patch) applyTheme(patch.theme);
    return merged;
  }

  // Locking forgets the account in the workers (py-worker drops its state and keys first); the page's own
  // memory of it (rendered conversations, component state, every string the JS heap still holds) goes
  // with a reload, which also starts fresh workers. e2e/test_profile_no_plaintext.py checks the heap.
  async function afterLock(notice = "") {
    try {
      sessionStorage.setItem(LOCKED_KEY, notice);
      workersRef.current?.terminate();
      location.reload();
      return;
    } catch { /* no session storage: lock in place (the page keeps what it rendered until a reload) */ }
    resetChatState();
    setAccount(null);
    setSettings({});
    setProviders([]);
    setLockNotice(notice);
    try { setAccounts(await workersRef.current.api.listAccounts()); } catch { /* keep the old list */ }
    setPhase("accounts");
  }

  async function lock(notice = t("accounts.locked")) {
    try { await api.lock(); } finally { await afterLock(notice); }
  }


  if (fatal) return html`<${FatalScreen} message=${fatal} />`;
  if (phase === "boot") return html`<${BootScreen} progress=${progress} />`;

  const ctx = {
    api, workers: workersRef.current, account, settings, providers, reloadProviders, updateSettings,
    toast: toasts.push, lock, navigate: setRoute, route, changeLang, syncEgress,
  };

  return html`<${AppContext.Provider} value=${ctx}>
    <${ToastContext.Provider} value=${toasts.push}>
      ${phase === "accounts"
        ? html`<${AccountsScreen} api=${api} accounts=${accounts} setAccounts=${setAccounts}
            notice=${lockNotice} onEnter=${() => enter()} changeLang=${changeLang} />`
        : html`<${Shell} route=${route} setRoute=${setRoute} account=${account} lock=${lock} />`}
      <${Toasts} toasts=${toasts.toasts} dismiss=${toasts.dismiss} hold=${toasts.hold} />
    <//>
  <//>`;
}

function Shell({ route, setRoute, account, lock }) {
  const { api, toast } = useApp();
  useActivityReports(api);
  const memoryNav = useMemoryNav(api, route);
  const screen = {
    chat: ChatScreen, memory: MemoryScreen, providers: ProvidersScreen, settings: SettingsScreen, about: AboutScreen,
  }[route] || ChatScreen;
  return html`<div class="shell">
    <a class="skip-link" href="#main">${t("nav.skip")}</a>
    <nav class="rail" aria-label=${t("nav.main")}>
      <div class="rail-brand" aria-hidden="true"><${Icon} name="shield" size=${24} /></div>
      <ul class="rail-items">
        ${ROUTES.map((r) => html`<li key=${r.id}>
          <button type="button" class=${`rail-item ${route === r.id ? "active" : ""}`}
            aria-current=${route === r.id ? "page" : undefined} onClick=${() => setRoute(r.id)}
            data-route=${r.id}>
            ${r.id === "memory" ? html`<${MemoryIcon} />` : html`<${Icon} name=${r.icon} size=${22} />`}<${RailLabel} route=${r} />
            ${r.id === "memory" ? html`<${MemoryNavExtra} ...${memoryNav} />` : null}
          </button>
        </li>`)}
      </ul>
      <div class="rail-foot">
        <button type="button" class="rail-item" onClick=${() => lock()} data-action="lock"
          title=${t("accounts.menu", { label: account?.label || "" })}>
          <${Icon} name="lock" size=${22} /><span class="rail-label">${t("accounts.lock")}</span>
        </button>
      </div>
    </nav>
    <main id="main" class="main" tabindex="-1">
      <${screen} />
    </main>
    <${MemoryGestures} api=${api} toast=${toast} navigate=${setRoute} />
    <${KeyboardLayer} route=${route} navigate=${setRoute} routes=${ROUTES} />
  </div>`;
}

/** The notice a lock left for the page after its reload (null: this load is not one). */
function takeLockedNotice() {
  try {
    const notice = sessionStorage.getItem(LOCKED_KEY);
    sessionStorage.removeItem(LOCKED_KEY);
    return notice;
  } catch {
    return null;
  }
}

function RailLabel({ route }) {
  const full = t(route.label);
  const bar = route.bar ? t(route.bar) : full;
  if (bar === full) return html`<span class="rail-label">${full}</span>`;
  return html`<span class="rail-label rail-label-full">${full}</span><span class="rail-label rail-label-bar"
    aria-hidden="true">${bar}</span>`;
}

/** Reports the user's presence to the worker, which owns the idle lock and the extraction timers:
 *  pointer and key activity (throttled), and the page being hidden or left. */
function useActivityReports(api) {
  useEffect(() => {
    let last = 0;
    const report = (kind) => api.activity(kind, chatState.currentId).catch(() => {});
    const touch = () => {
      const now = Date.now();
      if (now - last < ACTIVITY_REPORT_MS) return;
      last = now;
      report("activity");
    };
    const hidden = () => { if (document.visibilityState === "hidden") report("page_hidden"); else touch(); };
    const blur = () => report("window_blur");
    ACTIVITY_EVENTS.forEach((e) => window.addEventListener(e, touch, { passive: true, capture: true }));
    document.addEventListener("visibilitychange", hidden);
    window.addEventListener("blur", blur);
    return () => {
      ACTIVITY_EVENTS.forEach((e) => window.removeEventListener(e, touch, { capture: true }));
      document.removeEventListener("visibilitychange", hidden);
      window.removeEventListener("blur", blur);
    };
  }, [api]);
}
