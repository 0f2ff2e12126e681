// OpenMasq's service worker. This is a TEMPLATE: `openmasq build` (py/openmasq/site/build.py) fills in
// the build hash (a hash of every precached file), the precache list and the security policies
// (from py/openmasq/site/csp.py). See docs/web.md.
//
// - install: precaches the whole app (shell, vendor libraries, Pyodide, wheels, models), then skipWaiting;
// - activate: deletes this scope's caches from older builds, then clients.claim;
// - fetch: same-origin GET/HEAD inside the scope are served cache-first (ignoreSearch), with the
//   Content-Security-Policy and the cross-origin isolation headers set on every response, so a static
//   host that sends no headers still gets them after the first load. Range requests are answered
//   from the cached file (206).
// - message {type: "egress-origins", origins}: the provider origins the net-worker may connect to,
//   validated and kept in this worker's own cache storage (they survive restarts); the page restarts
//   the net-worker afterwards so its script response carries the widened connect-src.

const BUILD_HASH = __BUILD_HASH__;
const PRECACHE = __PRECACHE__;
const POLICIES = __POLICIES__;

const SCOPE = self.registration.scope; // always ends with "/"
const SCOPE_PATH = new URL(SCOPE).pathname;
const SITE_CACHE_PREFIX = "openmasq-site-";
// Cache names are shared by the whole origin: the scope keeps two deployments under sub-paths apart.
const SITE_CACHE = `${SITE_CACHE_PREFIX}${BUILD_HASH}@${SCOPE}`;
const CONFIG_CACHE = `openmasq-config@${SCOPE}`;
const ORIGINS_KEY = new URL("__openmasq/egress-origins", SCOPE).href; // never a file of the site
// Parallel downloads while precaching: the browser's own per-host limit is 6.
const PRECACHE_CONCURRENCY = 6;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
// nosniff, no referrer, and cross-origin isolation (COOP same-origin + COEP require-corp), from csp.py:
// a static host that sends no headers still gets a cross-origin isolated app (wasm threads) once this
// worker controls the page.
const SECURITY_HEADERS = POLICIES.headers;

// ---------------------------------------------------------------- install / activate

self.addEventListener("install", (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(SITE_CACHE_PREFIX) && name.endsWith(`@${SCOPE}`) && name !== SITE_CACHE) {
          await caches.delete(name);
        }
      }
      await self.clients.claim();
    })(),
  );
});

async function precache() {
  const cache = await caches.open(SITE_CACHE);
  const urls = PRECACHE.map((path) => new URL(path, SCOPE).href);
  const queue = [...urls];
  let done = 0;
  const next = async () => {
    while (queue.length > 0) {
      const url = queue.shift();
      // An install interrupted earlier (a phone losing the network) resumes where it stopped.
      if (!(await cache.match(url))) {
        // cache: "reload" bypasses the HTTP cache, so a stale copy never lands in a new build's cache.
        const response = await fetch(new Request(url, { cache: "reload", credentials: "same-origin" }));
        if (!response.ok) {
          throw new Error(`precache: ${url} answered ${response.status}`);
        }
        await cache.put(url, response);
      }
      done += 1;
      await broadcast({ type: "precache-progress", hash: BUILD_HASH, done, total: urls.length });
    }
  };
  await Promise.all(Array.from({ length: PRECACHE_CONCURRENCY }, next));
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
  event.respondWith(respond(request, url));
});

async function respond(request, url) {
  const path = url.pathname.slice(SCOPE_PATH.length);
  const cache = await caches.open(SITE_CACHE);
  // Matched by URL, not by request: a HEAD request would never match a cached GET.
  const cached = await cache.match(url.href, { ignoreSearch: true });
  if (cached) {
    return fromCache(cached, request, path);
  }
  try {
    return await withPolicy(await fetch(request), path);
  } catch (error) {
    // Offline and not precached: a navigation inside the app still gets the app.
    const shell = request.mode === "navigate" ? await cache.match(new URL("./", SCOPE).href) : undefined;
    if (shell) {
      return fromCache(shell, request, "");
    }
    throw error;
  }
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
  } else if (data && data.type === "status") {
    event.waitUntil(
      egressOrigins().then((origins) => reply({ type: "status", hash: BUILD_HASH, files: PRECACHE.length, origins })),
    );
  }
});
