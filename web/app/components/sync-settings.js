// Settings → Sync between devices (issue 21, docs/sync.md): the server's database address, the user and
// password, the sync code (made here on the first device, typed on the others), the API-keys opt-in, and
// "Sync now" with the status: last sync, changes waiting, conflicts resolved, what came in, documents
// refused, and a plain message when the server is unreachable, refuses the credentials or holds data of
// another key. The page only carries messages: sync-worker replicates, py-worker decides (syncRecords,
// syncMerge, syncApply), and the sync server's origin joins the egress policy before sync-worker starts.
import { Comlink, html, useEffect, useState } from "../lib.js";
import { t } from "../i18n.js";
import { useApp } from "../app.js";
import { errorMessage } from "./ui.js";
import { originOf, providerOrigins } from "../workers.js";
import { emit } from "../store.js";

const KNOWN_ERRORS = ["Unreachable", "BadCredentials", "WrongSyncKey", "BadSyncCode"];

let syncWorker = null; // {worker, rpc, origin}: one per page, restarted when the server's origin changes

function workerFor(origin) {
  if (syncWorker && syncWorker.origin === origin) return syncWorker.rpc;
  syncWorker?.worker.terminate();
  const worker = new Worker(new URL("../../worker/sync-worker.js", import.meta.url), { type: "module", name: "sync-worker" });
  syncWorker = { worker, rpc: Comlink.wrap(worker), origin };
  return syncWorker.rpc;
}

const syncError = (err) => (KNOWN_ERRORS.includes(err?.name) ? t(`sync.error.${err.name}`) : errorMessage(err));

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : t("sync.never");
}

/** One round: the records out of py-worker, replicated and merged by sync-worker, the changes back in. */
async function syncRound({ api, workers, providers, account }, config) {
  const origin = originOf(config.url);
  // The worker's policy is fixed when its script is fetched: the origin must be allowed first.
  await workers.setEgressOrigins([...providerOrigins(providers || []), origin]);
  const sync = workerFor(origin);
  const records = await api.call("syncRecords", [config.with_api_keys]);
  const merge = Comlink.proxy((name, base, ours, theirs) => api.call("syncMerge", [name, base, ours, theirs]));
  const { changed, status } = await sync.syncOnce({ ...config, account: account.id }, records, merge);
  const names = Object.keys(changed);
  if (names.length) {
    await api.call("syncApply", [changed]);
    emit("chat-changed");
    emit("memory-changed");
    emit("personas-changed");
  }
  return { ...status, applied: names.length };
}

export function SyncSettingsPanel() {
  const app = useApp();
  const { api, toast } = app;
  const [config, setConfig] = useState(null);
  const [status, setStatus] = useState(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.call("syncConfig").then(setConfig).catch((err) => setError(errorMessage(err)));
  }, []);
  if (!config) return null;

  const set = (patch) => setConfig({ ...config, ...patch });
  const newCode = async () => {
    const { newSyncKey, keyToCode } = await import("../../worker/sync-envelope.js");
    set({ code: keyToCode(newSyncKey()) });
  };
  const syncNow = async () => {
    setError("");
    if (!config.url || !config.user || !config.password || !config.code) {
      setError(t("sync.error.missing"));
      return;
    }
    setBusy(true);
    setStatus((s) => ({ ...(s || {}), state: "syncing" }));
    try {
      const { codeToKey } = await import("../../worker/sync-envelope.js");
      codeToKey(config.code);
      const saved = await api.call("saveSyncConfig", [config]);
      const done = await syncRound(app, saved);
      setStatus(done);
      setConfig(await api.call("saveSyncConfig", [{ ...saved, last_sync: done.lastSync }]));
      toast(t("sync.state.ok"));
    } catch (err) {
      const pending = syncWorker ? await syncWorker.rpc.status().catch(() => null) : null;
      setStatus({ ...(pending || {}), state: "error" });
      setError(syncError(err));
    } finally {
      setBusy(false);
    }
  };

  const state = status?.state || (config.last_sync ? "ok" : "idle");
  return html`<section class="panel" aria-labelledby="set-sync" data-testid="sync-settings">
    <h2 id="set-sync">${t("sync.title")}</h2>
    <p class="help">${t("sync.intro")}</p>
    <div class="field">
      <label for="sync-url">${t("sync.url")}</label>
      <input id="sync-url" type="url" autocomplete="off" value=${config.url} aria-describedby="sync-url-help"
        onInput=${(e) => set({ url: e.currentTarget.value })} />
      <p class="help" id="sync-url-help">${t("sync.urlHelp")}</p>
    </div>
    <div class="field">
      <label for="sync-user">${t("sync.user")}</label>
      <input id="sync-user" type="text" autocomplete="username" value=${config.user}
        onInput=${(e) => set({ user: e.currentTarget.value })} />
    </div>
    <div class="field">
      <label for="sync-password">${t("sync.password")}</label>
      <input id="sync-password" type="password" autocomplete="current-password" value=${config.password}
        onInput=${(e) => set({ password: e.currentTarget.value })} />
    </div>
    <div class="field">
      <label for="sync-code">${t("sync.code")}</label>
      <input id="sync-code" type="text" autocomplete="off" spellcheck="false" value=${config.code}
        aria-describedby="sync-code-help" onInput=${(e) => set({ code: e.currentTarget.value })} />
      <p class="help" id="sync-code-help">${t("sync.codeHelp")}</p>
      <div class="row">
        <button type="button" class="button" onClick=${newCode} data-action="sync-new-code">${t("sync.newCode")}</button>
      </div>
    </div>
    <div class="check">
      <input type="checkbox" id="sync-api-keys" checked=${config.with_api_keys}
        onChange=${(e) => set({ with_api_keys: e.currentTarget.checked })} />
      <label for="sync-api-keys">${t("sync.apiKeys")}</label>
    </div>
    <div class="row">
      <button type="button" class="button primary" disabled=${busy} onClick=${syncNow} data-action="sync-now">${t("sync.now")}</button>
    </div>
    ${error ? html`<p class="field-error" role="alert" data-testid="sync-error">${error}</p>` : null}
    <dl class="small" data-testid="sync-status" data-state=${state}>
      <dt>${t("sync.status")}</dt><dd data-testid="sync-state">${t(`sync.state.${state}`)}</dd>
      <dt>${t("sync.lastSync")}</dt><dd>${when(status?.lastSync || config.last_sync)}</dd>
      <dt>${t("sync.pending")}</dt><dd data-testid="sync-pending">${status?.pending ?? 0}</dd>
      <dt>${t("sync.conflicts")}</dt><dd data-testid="sync-conflicts">${status?.conflictsResolved ?? 0}</dd>
      <dt>${t("sync.applied")}</dt><dd data-testid="sync-applied">${status?.applied ?? 0}</dd>
    </dl>
    ${status?.refused?.length ? html`<p class="field-error" role="alert" data-testid="sync-refused">${t("sync.refused", { n: status.refused.length })}</p>` : null}
  </section>`;
}
