// Settings → Offline and models, and Storage: whether the app is ready offline, each on-demand model
// (size said before, download with progress, cancel, resume, remove), the storage used and available,
// persistence and the warning near the quota. The logic lives in downloads.js and offline.js.
import { html, useEffect, useState } from "../lib.js";
import { t, formatBytes } from "../i18n.js";
import { useApp } from "../app.js";
import { cancelDownload, downloadModel, modelStates, onModelsChange, removeModel } from "../downloads.js";
import { needsWasmCompat } from "../../worker/wasm-features.js";
import { appOffline, onPrecacheProgress, requestPersistence, serviceWorkerRefused, storageStatus } from "../offline.js";

const MODEL_ORDER = ["smollm2", "e5", "ocr"];

function useOfflineState() {
  const [models, setModels] = useState(null);
  const [app, setApp] = useState(null);
  const [storage, setStorage] = useState(null);
  const [live, setLive] = useState({}); // group -> progress while downloading
  useEffect(() => {
    let alive = true;
    const refresh = async () => {
      const [m, a, s] = await Promise.all([modelStates().catch(() => ({})), appOffline().catch(() => null), storageStatus()]);
      if (alive) { setModels(m); setApp(a); setStorage(s); }
    };
    refresh();
    const offModels = onModelsChange((group, progress) => {
      if (progress) setLive((l) => ({ ...l, [group]: progress }));
      else { setLive((l) => ({ ...l, [group]: undefined })); refresh(); }
    });
    const offPrecache = onPrecacheProgress((p) => { if (p.finished) refresh(); });
    return () => { alive = false; offModels(); offPrecache(); };
  }, []);
  return { models, app, storage, live, setStorage };
}

export function OfflineSettingsPanel() {
  const { toast } = useApp();
  const { models, app, storage, live, setStorage } = useOfflineState();
  const free = storage?.quota != null && storage?.usage != null ? storage.quota - storage.usage : null;
  const start = (group) => downloadModel(group).then(() => toast(t("models.downloaded")), () => {});
  const remove = async (group) => { await removeModel(group); toast(t("models.removed")); };
  const askPersist = async () => { await requestPersistence(); setStorage(await storageStatus()); };

  const refused = serviceWorkerRefused();
  return html`<section class="panel" aria-labelledby="set-offline" data-testid="offline-panel">
    <h2 id="set-offline">${t("models.title")}</h2>
    <p class="help">${t("models.intro")}</p>
    <div class="model-row" data-model="app" data-state=${app?.ready ? "ready" : refused ? "refused" : "pending"}>
      <p><strong>${t("models.app")}</strong> · ${app ? formatBytes(app.bytes) : ""}</p>
      <p class=${app?.ready ? "ok" : "muted"}>${app?.ready ? t("models.appReady") : refused ? t("models.appRefused")
        : t("models.appPending", { missing: app?.missing ?? "…" })}</p>
      <p class="help">${t("models.appHelp")}</p>
    </div>
    ${models ? MODEL_ORDER.filter((g) => models[g]).map((group) => html`<${ModelRow} key=${group} group=${group}
      model=${models[group]} progress=${live[group]} free=${free} onDownload=${() => start(group)}
      onCancel=${() => cancelDownload(group)} onRemove=${() => remove(group)} />`) : null}
  </section>

  <section class="panel" aria-labelledby="set-storage" data-testid="storage-panel">
    <h2 id="set-storage">${t("storage.title")}</h2>
    <p data-testid="storage-used">${storage?.usage != null && storage?.quota != null
      ? t("storage.used", { used: formatBytes(storage.usage), quota: formatBytes(storage.quota) }) : t("storage.unknown")}</p>
    ${storage?.quota != null && storage?.usage != null
      ? html`<progress max=${storage.quota} value=${storage.usage} aria-labelledby="set-storage"></progress>` : null}
    ${storage?.nearQuota ? html`<p class="field-error" role="alert" data-testid="quota-warning">${t("storage.nearQuota")}</p>` : null}
    <p data-testid="storage-persisted" data-persisted=${storage?.persisted ? "yes" : "no"}>
      ${storage?.persisted ? t("storage.persisted") : t("storage.notPersisted")}</p>
    ${storage && !storage.persisted
      ? html`<button type="button" class="button" onClick=${askPersist}>${t("storage.askPersist")}</button>` : null}
  </section>`;
}

function ModelRow({ group, model, progress, free, onDownload, onCancel, onRemove }) {
  const size = formatBytes(model.bytes);
  const left = model.bytes - model.stored;
  const state = model.running ? "downloading" : model.state;
  const tight = free !== null && model.state !== "ready" && left > free; // said before the download fails on quota
  return html`<div class="model-row" data-model=${group} data-state=${state}>
    <p><strong>${t(`models.${group}`)}</strong> · ${size}</p>
    <p class="help">${t(`models.${group}Help`)}</p>
    ${group === "smollm2" && needsWasmCompat()
      ? html`<p class="help" data-testid="model-compat">${t("models.smollm2Compat")}</p>` : null}
    ${state === "downloading"
      ? html`<progress max=${progress?.total || model.bytes} value=${progress?.loaded || 0}
          aria-label=${t(`models.${group}`)}></progress>
          <p class="muted small" data-testid="model-progress">${t("models.progress", {
            loaded: formatBytes(progress?.loaded || 0), total: size })}</p>`
      : html`<p class=${state === "ready" ? "ok" : "muted"} data-testid="model-state">${state === "ready" ? t("models.ready")
          : state === "partial" ? t("models.partial", { stored: formatBytes(model.stored), total: size }) : t("models.absent")}</p>`}
    ${model.error && state !== "downloading"
      ? html`<p class="field-error" role="alert" data-error-kind=${model.error.kind}>${t(`models.error.${model.error.kind}`)}
          <span class="muted small"> (${model.error.detail})</span></p>` : null}
    ${tight ? html`<p class="field-error">${t("models.noRoom", { free: formatBytes(free), size })}</p>` : null}
    <div class="row">
      ${state === "downloading"
        ? html`<button type="button" class="button" data-action="cancel" onClick=${onCancel}>${t("models.cancel")}</button>`
        : state !== "ready"
          ? html`<button type="button" class="button primary" data-action="download" onClick=${onDownload}>${state === "partial"
              ? t("models.resume", { left: formatBytes(left) }) : t("models.download", { size })}</button>` : null}
      ${state === "ready" || state === "partial"
        ? html`<button type="button" class="button" data-action="remove" onClick=${onRemove}>${t("models.remove")}</button>` : null}
    </div>
  </div>`;
}
