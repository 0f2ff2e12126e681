// OpenMasq's service worker. This is a TEMPLATE: `openmasq build` (py/openmasq/site/build.py) fills in
// the build hash, the site's manifest (every file with its sha256, size and group) and the security
// policies (from py/openmasq/site/csp.py). See docs/web.md and docs/install.md.
//
// - Files are cached by content: one Cache Storage entry per sha256 (`<scope>__openmasq/file/<sha256>`
//   in `openmasq-files@<scope>`), shared by every build. A path is served through this build's
//   manifest (path -> sha256), so a new build reuses every unchanged file and an update downloads only
//   what changed.
// - install: fetches the "app" group's files that are not cached yet (revalidating against the HTTP
//   cache, so what the page already downloaded is not fetched twice), checks each one's sha256 before
//   storing it (a file that does not match the build is fetched once more, bypassing the HTTP cache,
//   then fails the install: never a wrong file cached), posts progress to the windows, then skipWaiting.
// - activate: deletes the files no group of this build lists (and the old per-build caches), then
//   clients.claim. A model downloaded earlier whose content did not change stays downloaded.
// - fetch: same-origin GET/HEAD inside the scope are served from the cache with the Content-Security-
//   Policy and the cross-origin isolation headers set on every response, so a static host that sends no
//   headers still gets them after the first load. Range requests are answered from the cached file
//   (206). An on-demand file (a model) that is not downloaded is answered 404 "Not downloaded" with
//   `X-OpenMasq-Missing: <group>`: nothing downloads a model behind the user's back. Only the page's
//   downloader (web/app/downloads.js), which said the size first, goes to the network for it, marked
//   by the `X-OpenMasq-Download` request header.
// - `files.json` (the manifest) is answered from this worker's own copy: the page learns what this
//   build holds and where it is cached.
// - message {type: "egress-origins", origins}: the provider origins the net-worker may connect to,
//   validated and kept in this worker's own cache storage (they survive restarts); the page restarts
//   the net-worker afterwards so its script response carries the widened connect-src.

const BUILD_HASH = __BUILD_HASH__;
const MANIFEST = __MANIFEST__;
const POLICIES = __POLICIES__;

const SCOPE = self.registration.scope; // always ends with "/"
const SCOPE_PATH = new URL(SCOPE).pathname;
// Cache names are shared by the whole origin: the scope keeps two deployments under sub-paths apart.
const FILES_CACHE = `${MANIFEST.filesCache}@${SCOPE}`;
const PARTIAL_CACHE = `${MANIFEST.partialCache}@${SCOPE}`;
const LEGACY_CACHE_PREFIX = "openmasq-site-"; // one cache per build, before content addressing
const CONFIG_CACHE = `openmasq-config@${SCOPE}`;
const ORIGINS_KEY = new URL("__openmasq/egress-origins", SCOPE).href; // never a file of the site
const MANIFEST_PATH = "files.json";
const DOWNLOAD_HEADER = "X-OpenMasq-Download";
const BY_PATH = new Map(MANIFEST.files.map((file) => [file.path, file]));
BY_PATH.set("", BY_PATH.get("index.html")); // the scope's own URL is the page
const APP_FILES = uniqueByHash(MANIFEST.files.filter((file) => file.group === MANIFEST.appGroup));
const KNOWN_KEYS = new Set(MANIFEST.files.map((file) => fileKey(file.sha256)));
// Parallel downloads while precaching: the browser's own per-host limit is 6.
const PRECACHE_CONCURRENCY = 6;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
// nosniff, no referrer, and cross-origin isolation (COOP same-origin + COEP require-corp), from csp.py:
// a static host that sends no headers still gets a cross-origin isolated app (wasm threads) once this
// worker controls the page.
const SECURITY_HEADERS = POLICIES.headers;

function fileKey(sha256) {
  return new URL(MANIFEST.fileKeyPrefix + sha256, SCOPE).href;
}

function uniqueByHash(files) {
  const seen = new Map();
  for (const file of files) if (!seen.has(file.sha256)) seen.set(file.sha256, file);
  return [...seen.values()];
}

// ---------------------------------------------------------------- install / activate

self.addEventListener("install", (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      await pruneCaches();
      await self.clients.claim();
      await broadcast({ type: "precache-done", hash: BUILD_HASH });
    })(),
  );
});

/** What this build does not list goes: old builds' files, models removed or changed, old caches. */
async function pruneCaches() {
  for (const name of await caches.keys()) {
    if (name.startsWith(LEGACY_CACHE_PREFIX) && name.endsWith(`@${SCOPE}`)) await caches.delete(name);
  }
  const files = await caches.open(FILES_CACHE);
  for (const request of await files.keys()) {
    if (!KNOWN_KEYS.has(request.url)) await files.delete(request);
  }
  const partial = await caches.open(PARTIAL_CACHE);
  for (const request of await partial.keys()) {
    const sha = new URL(request.url).pathname.split("/").at(-2);
    if (!KNOWN_KEYS.has(fileKey(sha))) await partial.delete(request);
  }
}

async function precache() {
  const cache = await caches.open(FILES_CACHE);
  // Smallest first: the page's own boot fetches the large runtime files (Pyodide's wasm) at once, and by the
  // time the install reaches them their revalidation finds them in the HTTP cache (bench/install.py).
  const queue = [...APP_FILES].sort((a, b) => a.size - b.size);
  const progress = { done: 0, total: queue.length, loaded: 0, bytes: 0, fetched: 0 };
  for (const file of queue) progress.bytes += file.size;
  const next = async () => {
    while (queue.length > 0) {
      const file = queue.shift();
      // Cached by an earlier build (same content), or by an install interrupted earlier: nothing to fetch.
      if (!(await cache.match(fileKey(file.sha256)))) {
        await cache.put(fileKey(file.sha256), await fetchVerified(file));
        progress.fetched += 1;
      }
      progress.done += 1;
      progress.loaded += file.size;
      await broadcast({ type: "precache-progress", hash: BUILD_HASH, ...progress });
    }
  };
  await Promise.all(Array.from({ length: PRECACHE_CONCURRENCY }, next));
}

/** The file's bytes as a response to cache, once its sha256 is the manifest's. */
async function fetchVerified(file) {
  const url = new URL(file.path, SCOPE).href;
  // "no-cache" revalidates what the page's own boot put in the HTTP cache (a 304 costs no body);
  // on a mismatch (a host mid-deployment, a stale copy) the second try bypasses the HTTP cache.
  for (const mode of /** @type {const} */ (["no-cache", "reload"])) {
    const response = await fetch(new Request(url, { cache: mode, credentials: "same-origin" }));
    if (!response.ok) throw new Error(`precache: ${file.path} answered ${response.status}`);
    const body = await response.arrayBuffer();
    if ((await sha256Hex(body)) === file.sha256) {
      const type = response.headers.get("Content-Type") || "application/octet-stream";
      return new Response(body, { status: 200, headers: { "Content-Type": type, "Content-Length": String(body.byteLength) } });
    }
  }
  throw new Error(`precache: ${file.path} does not match this build (sha256 differs): the host serves another version`);
}

async function sha256Hex(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function broadcast(message) {
  const clients = await self.clients.matchAll({ includeUncontrolled: true, type: "window" });
  for (const client of clients) {
    client.postMessage(message);
  }
}

// ---------------------------------------------------------------- fetch

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" && request.method !== "HEAD") {
    return;
  }
  const url = new URL(request.url);
  // Cross-origin requests (the net-worker's calls to providers) go to the network untouched.
  if (url.origin !== self.location.origin || !url.pathname.startsWith(SCOPE_PATH)) {
    return;
  }
  event.respondWith(respond(request, url, event));
});

async function respond(request, url, event) {
  const path = url.pathname.slice(SCOPE_PATH.length);
  if (path === MANIFEST_PATH) {
    return withPolicy(new Response(request.method === "HEAD" ? null : JSON.stringify(MANIFEST), {
      status: 200, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" },
    }), path);
  }
  const file = BY_PATH.get(path);
  const cache = await caches.open(FILES_CACHE);
  if (file) {
    const cached = await cache.match(fileKey(file.sha256));
    if (cached) {
      return fromCache(cached, request, path);
    }
    if (file.group !== MANIFEST.appGroup && !request.headers.has(DOWNLOAD_HEADER)) {
      return notDownloaded(file, path);
    }
  }
  try {
    const response = await fetch(request);
    if (file && file.group === MANIFEST.appGroup && response.status === 200 && request.method === "GET") {
      // An app file missing from the cache (evicted, or asked for before the install stored it): kept once
      // its sha256 is checked, so the offline copy heals as the app is used.
      event.waitUntil(keepIfVerified(cache, file, response.clone()).catch(() => {}));
    }
    return await withPolicy(response, path);
  } catch (error) {
    // Offline and not cached: a navigation inside the app still gets the app.
    const page = BY_PATH.get("index.html");
    const shell = request.mode === "navigate" && page ? await cache.match(fileKey(page.sha256)) : undefined;
    if (shell) {
      return fromCache(shell, request, "");
    }
    throw error;
  }
}

async function keepIfVerified(cache, file, response) {
  const body = await response.arrayBuffer();
  if ((await sha256Hex(body)) !== file.sha256) return;
  const type = response.headers.get("Content-Type") || "application/octet-stream";
  await cache.put(fileKey(file.sha256), new Response(body, {
    status: 200, headers: { "Content-Type": type, "Content-Length": String(body.byteLength) },
  }));
}

async function notDownloaded(file, path) {
  const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "X-OpenMasq-Missing": file.group });
  await setPolicy(headers, path);
  const text = `${path} is not downloaded on this device (${file.group}): download it in Settings`;
  return new Response(text, { status: 404, statusText: "Not downloaded", headers });
}

async function fromCache(cached, request, path) {
  const headers = new Headers(cached.headers);
  headers.set("Accept-Ranges", "bytes");
  await setPolicy(headers, path);
  const init = { status: cached.status, statusText: cached.statusText, headers };
  if (request.method === "HEAD") {
    return new Response(null, init);
  }
  const range = request.headers.get("Range");
  if (range && cached.status === 200) {
    return rangeResponse(await cached.blob(), range, headers);
  }
  // A new Response, not the cached one: a cached redirect would be refused for a navigation.
  return new Response(cached.body, init);
}

// One "bytes=" range (first-last, first-, or -suffix); anything else is ignored, as HTTP allows.
function rangeResponse(blob, header, headers) {
  const size = blob.size;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) {
    return new Response(blob, { status: 200, headers });
  }
  let start;
  let end;
  if (match[1] === "") {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) {
    headers.set("Content-Range", `bytes */${size}`);
    headers.delete("Content-Length");
    return new Response(null, { status: 416, statusText: "Range Not Satisfiable", headers });
  }
  headers.set("Content-Range", `bytes ${start}-${end}/${size}`);
  headers.set("Content-Length", String(end - start + 1));
  return new Response(blob.slice(start, end + 1), { status: 206, statusText: "Partial Content", headers });
}

async function withPolicy(response, path) {
  if (response.type !== "basic") {
    return response;
  }
  const headers = new Headers(response.headers);
  await setPolicy(headers, path);
  const body = NULL_BODY_STATUSES.has(response.status) ? null : response.body;
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

async function setPolicy(headers, path) {
  headers.set("Content-Security-Policy", await policyFor(path));
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    headers.set(name, value);
  }
}

async function policyFor(path) {
  if (POLICIES.egressScripts.includes(path)) {
    const origins = await egressOrigins();
    // A function replacement: "$" sequences in the inserted text must stay literal.
    return POLICIES.egressTemplate.replace("__ORIGINS__", () => origins.map((origin) => ` ${origin}`).join(""));
  }
  return POLICIES.byPath[path] || POLICIES.page;
}

// ---------------------------------------------------------------- the egress origins

let egressCache = null; // this instance's copy; the cache entry is the truth across restarts

async function egressOrigins() {
  if (egressCache === null) {
    const hit = await (await caches.open(CONFIG_CACHE)).match(ORIGINS_KEY);
    egressCache = (hit && validOrigins(await hit.json())) || [];
  }
  return egressCache;
}

async function saveEgressOrigins(list) {
  const origins = validOrigins(list);
  if (origins === null) {
    throw new Error("egress-origins: expected a list of http(s) origins");
  }
  const body = JSON.stringify(origins);
  const store = await caches.open(CONFIG_CACHE);
  await store.put(ORIGINS_KEY, new Response(body, { headers: { "Content-Type": "application/json" } }));
  egressCache = origins;
  return origins;
}

// The same rule as csp.origin_of in Python: scheme://host[:port] and nothing else, so no text from
// a message can add a directive or a wildcard to the header.
function originOf(value) {
  if (typeof value !== "string" || /[\s;,'"*\\]/.test(value)) {
    return null;
  }
  let url;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const hostOk = /^[a-z0-9.-]+$/.test(url.hostname) || /^\[[0-9a-f:.]+\]$/.test(url.hostname);
  const bare = url.username === "" && url.password === "" && url.search === "" && url.hash === "";
  const whole = value === url.origin || value === `${url.origin}/`;
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !hostOk || !bare || url.pathname !== "/" || !whole) {
    return null;
  }
  return url.origin;
}

function validOrigins(list) {
  if (!Array.isArray(list) || list.length > POLICIES.maxOrigins) {
    return null;
  }
  const origins = list.map(originOf);
  if (origins.includes(null)) {
    return null;
  }
  return [...new Set(origins)].sort();
}

self.addEventListener("message", (event) => {
  const data = event.data;
  const reply = (message) => (event.ports[0] || event.source).postMessage(message);
  if (data && data.type === "egress-origins") {
    event.waitUntil(
      saveEgressOrigins(data.origins).then(
        (origins) => reply({ type: "egress-origins-saved", origins }),
        (error) => reply({ type: "egress-origins-refused", message: String(error.message || error) }),
      ),
    );
  } else if (data && data.type === "precache") {
    // The page found app files missing (storage evicted, an entry lost): fetch what is missing again.
    event.waitUntil(precache().then(
      () => broadcast({ type: "precache-done", hash: BUILD_HASH }),
      (error) => broadcast({ type: "precache-failed", hash: BUILD_HASH, message: String(error.message || error) }),
    ));
  } else if (data && data.type === "status") {
    event.waitUntil(
      egressOrigins().then((origins) => reply({ type: "status", hash: BUILD_HASH, files: APP_FILES.length, origins })),
    );
  }
});
