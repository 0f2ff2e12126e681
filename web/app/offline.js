// The app's offline copy and its storage (docs/install.md): early service-worker registration, the
// precache's progress as the service worker reports it, whether the app group is ready offline,
// persistent storage (asked for at account creation) and the storage estimate with its warning.
import { manifest } from "./downloads.js";

const SCOPE = new URL("../", import.meta.url);
// Past this share of the quota the settings warn (a model download could then fail mid-way).
export const QUOTA_WARNING_SHARE = 0.8;

let precache = { done: 0, total: 0, loaded: 0, bytes: 0, fetched: 0, finished: false };
// False when this browser gives the page no service worker (a private window, a policy): no offline copy, ever.
let serviceWorkerAllowed = Boolean(globalThis.navigator?.serviceWorker);
const listeners = new Set();

/** Registers the service worker as the page loads (idempotent) and follows its install's progress. */
export function registerEarly() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  navigator.serviceWorker.addEventListener("message", (event) => {
    const data = event.data || {};
    if (data.type === "precache-progress") update({ ...pick(data), finished: data.done === data.total });
    else if (data.type === "precache-done") update({ finished: true, error: null });
    else if (data.type === "precache-failed") update({ finished: false, error: data.message });
  });
  navigator.serviceWorker.startMessages?.();
  const registered = navigator.serviceWorker.register(new URL("sw.js", SCOPE), { type: "classic" }).then((registration) => {
    if (!registration) serviceWorkerAllowed = false; // a browser (or a tool) that answers the call with nothing
    return registration || null;
  }, (err) => {
    console.warn("service worker registration failed", err);
    serviceWorkerAllowed = false;
    return null;
  });
  // A later visit: the offline copy is checked, and what storage pressure took is fetched again; when the
  // page is idle, so the check's cache reads do not compete with the boot.
  if (navigator.serviceWorker.controller) {
    const check = () => healOfflineCopy().catch((err) => console.warn("offline copy check failed", err));
    if (self.requestIdleCallback) requestIdleCallback(check, { timeout: 10_000 });
    else setTimeout(check, 0);
  }
  return registered;
}

function pick({ done, total, loaded, bytes, fetched }) {
  return { done, total, loaded, bytes, fetched };
}

function update(patch) {
  precache = { ...precache, ...patch };
  for (const listener of listeners) listener(precache);
}

export function precacheProgress() {
  return precache;
}

export function onPrecacheProgress(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether the browser refused this page a service worker (a private window, a policy): no offline copy, and no
 *  provider's address allowed (docs/web.md). */
export function serviceWorkerRefused() {
  return !serviceWorkerAllowed;
}

/** Whether every file of the app group is in the content-addressed cache: {ready, missing, bytes, controlled}. */
export async function appOffline() {
  const doc = await manifest();
  const cache = await caches.open(`${doc.filesCache}@${SCOPE.href}`);
  let missing = 0;
  let bytes = 0;
  const seen = new Set();
  for (const file of doc.files) {
    if (file.group !== doc.appGroup || seen.has(file.sha256)) continue;
    seen.add(file.sha256);
    bytes += file.size;
    if (!(await cache.match(new URL(doc.fileKeyPrefix + file.sha256, SCOPE).href))) missing += 1;
  }
  const controlled = Boolean(navigator.serviceWorker?.controller);
  return { ready: missing === 0 && controlled, missing, bytes, controlled };
}

/** When the service worker controls the page but app files are missing from its cache (storage evicted,
 *  an entry lost), asks it to fetch them again; true when it was asked. */
export async function healOfflineCopy() {
  const controller = navigator.serviceWorker?.controller;
  if (!controller) return false;
  const state = await appOffline();
  if (state.missing === 0) return false;
  update({ finished: false });
  controller.postMessage({ type: "precache" });
  return true;
}

/** Asks the browser to keep this site's storage under pressure; true when it is (or already was) kept. */
export async function requestPersistence() {
  if (!navigator.storage?.persist) return false;
  try {
    if (await navigator.storage.persisted()) return true;
    return await navigator.storage.persist();
  } catch {
    return false;
  }
}

/** {usage, quota, persisted, nearQuota}: the browser's own figures (null where it gives none). */
export async function storageStatus() {
  const storage = navigator.storage;
  /** @type {StorageEstimate} */
  const estimate = storage?.estimate ? await storage.estimate().catch(() => ({})) : {};
  const persisted = storage?.persisted ? await storage.persisted().catch(() => false) : false;
  const usage = Number.isFinite(estimate.usage) ? estimate.usage : null;
  const quota = Number.isFinite(estimate.quota) ? estimate.quota : null;
  return { usage, quota, persisted, nearQuota: nearQuota(usage, quota) };
}

export function nearQuota(usage, quota, extra = 0) {
  if (usage === null || quota === null || quota <= 0) return false;
  return usage + extra >= quota * QUOTA_WARNING_SHARE;
}
