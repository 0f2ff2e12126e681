// Spawns the module workers, wires their MessagePorts (docs/web.md, "The worker protocol"), registers the
// service worker, and keeps net-worker's egress policy in step with the configured providers.
import { Comlink } from "./lib.js";

const workerUrl = (name) => new URL(`../worker/${name}`, import.meta.url);
// The service worker answers an egress update before the net-worker restarts; past this the page
// restarts anyway (the new worker then keeps the previous policy, and a send reports "blocked").
const SW_ACK_TIMEOUT_MS = 3000;
// On the very first visit the service worker must take control before net-worker starts, or its
// script would be fetched without the widened policy. Past this the page starts it uncontrolled.
const SW_CONTROL_TIMEOUT_MS = 8000;

export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker
    .register(new URL("../sw.js", import.meta.url), { type: "classic" })
    .catch((err) => {
      console.warn("service worker registration failed", err);
      return null;
    });
}

function waitForController(timeoutMs) {
  if (!("serviceWorker" in navigator) || navigator.serviceWorker.controller) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); resolve(); };
    const timer = setTimeout(done, timeoutMs);
    navigator.serviceWorker.addEventListener("controllerchange", done, { once: true });
  });
}

function tellServiceWorker(message) {
  const controller = navigator.serviceWorker?.controller;
  if (!controller) return Promise.resolve(false);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => { channel.port1.close(); resolve(false); }, SW_ACK_TIMEOUT_MS);
    channel.port1.onmessage = () => { clearTimeout(timer); channel.port1.close(); resolve(true); };
    controller.postMessage(message, [channel.port2]);
  });
}

export function originOf(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch {
    return null;
  }
}

/** A module worker that talks to py-worker over a MessagePort: the worker, and py-worker's end of the port. */
function spawnPorted(name) {
  const worker = new Worker(workerUrl(`${name}.js`), { type: "module", name });
  const channel = new MessageChannel();
  worker.postMessage({ type: "port", port: channel.port2 }, [channel.port2]);
  return [worker, channel.port1];
}

export class Workers {
  constructor() {
    /** @type {(Worker & {loadError?: string}) | null} */
    this.py = null;
    this.api = null;
    this.net = null;
    this.llm = null;
    this.ml = null;
    this.origins = [];
    this.told = false; // whether the service worker acknowledged this.origins
    /** @type {(message: string) => void} */
    this.onError = () => {};
  }

  /** Starts py-worker; the model workers and net-worker come after its boot (startModels, connectNet). */
  start(py = null) {
    this.py = py || new Worker(workerUrl("py-worker.js"), { type: "module", name: "py-worker" });
    this.py.addEventListener("error", (e) => this.onError(e.message || "py-worker failed to load"));
    if (this.py.loadError) this.onError(this.py.loadError);
    this.api = Comlink.wrap(this.py);
  }

  /** Once py-worker has booted: llm-worker (the bundled model) and ml-worker (issue 7: on-device NER and
   *  embeddings, reached by py-worker only). Spawned during the boot, their scripts (transformers.js alone is
   *  ~1 MB of JS to compile) competed with Pyodide's for the two cores of a phone or a small laptop; the
   *  models themselves load on first use, while the user types the passphrase at the earliest. */
  async startModels() {
    let port;
    [this.llm, port] = spawnPorted("llm-worker");
    await this.api.setLlmPort(Comlink.transfer(port, [port]));
    [this.ml, port] = spawnPorted("ml-worker");
    await this.api.setMlPort(Comlink.transfer(port, [port]));
  }

  /** Once py-worker has booted: registers the service worker and starts net-worker when it controls the
   *  page. On a first visit the worker's install precaches the whole site (about 240 MB): started before
   *  the boot, it competed with Pyodide's download and doubled the time to the account gate (bench/boot.py).
   *  Nothing can be sent to a provider before an account is open, which takes longer than this. */
  async connectNet() {
    await registerServiceWorker();
    await waitForController(SW_CONTROL_TIMEOUT_MS);
    if (!this.net) {
      const port = this.spawnNet();
      await this.api.setNetPort(Comlink.transfer(port, [port]));
    }
    // A service worker that takes control later (first visit, or a new build) does not know the origins
    // yet, and the running net-worker was fetched without them: tell it, then fetch net-worker again.
    navigator.serviceWorker?.addEventListener("controllerchange", () => this.rewire().catch(() => {}));
  }

  async rewire() {
    if (!this.api) return;
    this.told = await tellServiceWorker({ type: "egress-origins", origins: this.origins });
    const port = this.spawnNet();
    await this.api.setNetPort(Comlink.transfer(port, [port]));
  }

  /** A fresh net-worker (fetching its script again, so it gets the current policy) and the py-worker's end. */
  spawnNet() {
    if (this.net) this.net.terminate();
    let port;
    [this.net, port] = spawnPorted("net-worker");
    return port;
  }

  /** Tells the service worker which provider origins net-worker may reach, then restarts net-worker. */
  async setEgressOrigins(origins) {
    const wanted = [...new Set(origins.filter(Boolean))].sort();
    if (wanted.join(" ") === this.origins.join(" ") && this.told) return false;
    this.origins = wanted;
    await this.rewire();
    return true;
  }

  terminate() {
    for (const w of [this.py, this.net, this.llm, this.ml]) w?.terminate();
  }
}

/** The http(s) origins of the remote providers (the bundled model needs none). */
export function providerOrigins(providers) {
  return providers.filter((p) => p.kind !== "local" && !p.local).map((p) => originOf(p.base_url)).filter(Boolean);
}
