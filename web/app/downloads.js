// The on-demand models (docs/install.md): what this build offers (files.json, the manifest the build
// writes and the service worker answers), whether each group is ready offline, and its download:
// size said before, progress, resumable after a lost connection (HTTP Range requests, chunks kept in
// Cache Storage), cancellable, checked against its sha256 before the service worker may serve it,
// one tab at a time (Web Locks). Removing a model deletes its files. Pure state lives in `plan*`
// functions; the rest is the thin shell over fetch and Cache Storage.

import { fileWanted } from "../worker/wasm-features.js";

const MANIFEST_URL = new URL("../files.json", import.meta.url);
const SCOPE = new URL("../", import.meta.url);
// One Range request per chunk: a lost connection costs at most one chunk, and progress is exact.
export const CHUNK_BYTES = 8 * 1024 * 1024;
const DOWNLOAD_HEADER = "X-OpenMasq-Download"; // sw.js lets only these reach the network for a model
const LOCK_PREFIX = "openmasq-download:";

let manifestPromise = null;
const listeners = new Set();
const running = new Map(); // group -> {controller, progress}
const lastError = new Map(); // group -> {kind, detail}: the UI says it in the user's language

/** The build's manifest, fetched once per page. */
export function manifest() {
  manifestPromise ??= fetch(MANIFEST_URL, { cache: "no-cache" }).then((r) => {
    if (!r.ok) throw new Error(`files.json: HTTP ${r.status}`);
    return r.json();
  }).catch((err) => { manifestPromise = null; throw err; });
  return manifestPromise;
}

const fileKey = (doc, sha) => new URL(doc.fileKeyPrefix + sha, SCOPE).href;
const partKey = (doc, sha, offset) => new URL(`${doc.fileKeyPrefix}${sha}/${offset}`, SCOPE).href;
const cacheName = (name) => `${name}@${SCOPE.href}`;

/** The on-demand groups of a manifest: {group: {files, bytes}}, files unique by content, without the files
 * this browser does not need (a file's `only`: wasm-features.js's CONDITIONS, or `conditions` given). */
export function groupsOf(doc, conditions) {
  const groups = {};
  for (const file of doc.files) {
    if (file.group === doc.appGroup || !fileWanted(file, conditions)) continue;
    const g = (groups[file.group] ??= { files: [], bytes: 0 });
    if (g.files.some((f) => f.sha256 === file.sha256)) continue;
    g.files.push(file);
    g.bytes += file.size;
  }
  return groups;
}

/** The Range requests still needed for a file, given the chunk offsets already stored. */
export function planChunks(size, storedOffsets, chunk = CHUNK_BYTES) {
  const have = new Set(storedOffsets);
  const wanted = [];
  for (let start = 0; start < size; start += chunk) {
    if (!have.has(start)) wanted.push({ start, end: Math.min(start + chunk, size) - 1 });
  }
  return wanted;
}

/** "ready" when every file is cached, "partial" when some bytes are, "absent" otherwise. */
export function stateOf(cachedFiles, storedBytes, total) {
  if (cachedFiles.every(Boolean)) return "ready";
  return storedBytes > 0 ? "partial" : "absent";
}

async function storedOffsets(doc, partial, sha) {
  const prefix = new URL(`${doc.fileKeyPrefix}${sha}/`, SCOPE).href;
  return (await partial.keys()).map((r) => r.url).filter((u) => u.startsWith(prefix))
    .map((u) => Number(u.slice(prefix.length))).filter(Number.isInteger);
}

/** {group: {bytes, stored, state, running, progress, error}} for every on-demand group of this build. */
export async function modelStates() {
  const doc = await manifest();
  const files = await caches.open(cacheName(doc.filesCache));
  const partial = await caches.open(cacheName(doc.partialCache));
  const out = {};
  for (const [group, { files: list, bytes }] of Object.entries(groupsOf(doc))) {
    const cached = [];
    let stored = 0;
    for (const file of list) {
      const hit = Boolean(await files.match(fileKey(doc, file.sha256)));
      cached.push(hit);
      if (hit) stored += file.size;
      else stored += (await storedOffsets(doc, partial, file.sha256)).reduce((n, off) => n + Math.min(CHUNK_BYTES, file.size - off), 0);
    }
    const job = running.get(group);
    out[group] = { bytes, stored, state: stateOf(cached, stored, bytes), running: Boolean(job),
      progress: job?.progress || null, error: lastError.get(group) || null };
  }
  return out;
}

export function onModelsChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed(group, progress = null) {
  if (progress && running.has(group)) running.get(group).progress = progress;
  for (const listener of listeners) listener(group, progress);
}

export class DownloadError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind; // "quota" | "network" | "corrupt" | "cancelled" | "http"
  }
}

/** Downloads a group (resuming what is stored); resolves when every file is ready offline. */
export function downloadModel(group) {
  if (running.has(group)) return running.get(group).promise;
  const controller = new AbortController();
  const job = { controller, progress: null, promise: null };
  running.set(group, job);
  lastError.delete(group);
  job.promise = withLock(group, () => downloadGroup(group, controller.signal))
    .catch((err) => {
      const error = err instanceof DownloadError ? err : asDownloadError(err, controller.signal);
      if (error.kind !== "cancelled") lastError.set(group, { kind: error.kind, detail: error.message });
      throw error;
    })
    .finally(() => { running.delete(group); changed(group); });
  changed(group);
  return job.promise;
}

export function cancelDownload(group) {
  running.get(group)?.controller.abort();
}

/** Deletes a group's files (downloaded or partial). */
export async function removeModel(group) {
  cancelDownload(group);
  const doc = await manifest();
  const files = await caches.open(cacheName(doc.filesCache));
  const partial = await caches.open(cacheName(doc.partialCache));
  const keep = new Set(doc.files.filter((f) => f.group !== group).map((f) => f.sha256)); // shared content stays
  for (const file of groupsOf(doc)[group]?.files || []) {
    if (keep.has(file.sha256)) continue;
    await files.delete(fileKey(doc, file.sha256));
    for (const offset of await storedOffsets(doc, partial, file.sha256)) await partial.delete(partKey(doc, file.sha256, offset));
  }
  lastError.delete(group);
  changed(group);
}

function withLock(group, work) {
  // Two tabs downloading the same model: the second waits, then finds the files cached.
  if (!navigator.locks) return work();
  return navigator.locks.request(LOCK_PREFIX + group, work);
}

function asDownloadError(err, signal) {
  if (signal.aborted) return new DownloadError("cancelled", "cancelled");
  if (err?.name === "QuotaExceededError") {
    return new DownloadError("quota", "not enough storage left on this device for this model: free some space, then resume");
  }
  return new DownloadError("network", `the download stopped (${err?.message || err}): resume to continue where it stopped`);
}

async function downloadGroup(group, signal) {
  const doc = await manifest();
  const entry = groupsOf(doc)[group];
  if (!entry) throw new DownloadError("http", `this build has no model ${group}`);
  const files = await caches.open(cacheName(doc.filesCache));
  const partial = await caches.open(cacheName(doc.partialCache));
  const progress = { loaded: 0, total: entry.bytes };
  const pending = [];
  for (const file of entry.files) {
    if (await files.match(fileKey(doc, file.sha256))) progress.loaded += file.size;
    else pending.push(file);
  }
  changed(group, { ...progress });
  for (const file of pending) {
    await downloadFile(doc, file, files, partial, signal, (n) => {
      progress.loaded += n;
      changed(group, { ...progress });
    });
  }
}

async function downloadFile(doc, file, files, partial, signal, advance) {
  const done = await storedOffsets(doc, partial, file.sha256);
  advance(done.reduce((n, off) => n + Math.min(CHUNK_BYTES, file.size - off), 0));
  let type = "application/octet-stream";
  for (const { start, end } of planChunks(file.size, done)) {
    if (signal.aborted) throw new DownloadError("cancelled", "cancelled");
    const url = new URL(file.path, SCOPE);
    const response = await fetch(url, { signal, cache: "no-store",
      headers: { Range: `bytes=${start}-${end}`, [DOWNLOAD_HEADER]: "1" } });
    if (response.status !== 206 && !(response.status === 200 && start === 0 && end === file.size - 1)) {
      throw new DownloadError("http", `${file.path}: the server answered ${response.status} to a range request`);
    }
    type = response.headers.get("Content-Type") || type;
    const body = await response.arrayBuffer();
    if (body.byteLength !== end - start + 1) {
      throw new DownloadError("network", `${file.path}: ${body.byteLength} bytes instead of ${end - start + 1}: resume to fetch it again`);
    }
    await partial.put(partKey(doc, file.sha256, start), new Response(body));
    advance(body.byteLength);
  }
  await commitFile(doc, file, files, partial, type, advance);
}

/** Joins the chunks, checks the sha256, and only then stores the whole file where sw.js serves it. */
async function commitFile(doc, file, files, partial, type, advance) {
  const offsets = (await storedOffsets(doc, partial, file.sha256)).sort((a, b) => a - b);
  const parts = [];
  for (const offset of offsets) parts.push(await (await partial.match(partKey(doc, file.sha256, offset))).blob());
  const blob = new Blob(parts, { type });
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await blob.arrayBuffer()));
  const sha = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  const clear = async () => { for (const offset of offsets) await partial.delete(partKey(doc, file.sha256, offset)); };
  if (sha !== file.sha256 || blob.size !== file.size) {
    await clear(); // a corrupt copy is never kept: the next try downloads the file again
    advance(-blob.size);
    throw new DownloadError("corrupt", `${file.path} arrived damaged (its sha256 does not match the build): download it again`);
  }
  await files.put(fileKey(doc, file.sha256), new Response(blob, {
    status: 200, headers: { "Content-Type": type, "Content-Length": String(blob.size) },
  }));
  await clear();
}
