// py-worker: Pyodide + the openmasq wheel; exposes the App API to the page through comlink
// (docs/web.md, "The worker protocol"). Accounts and encryption are storage.js's; every other method is
// answered by the Python App (py/openmasq/worker/), which reaches providers only through the two
// ports it is given: net-worker (remote providers) and llm-worker (the bundled model). This worker's
// own policy is connect-src 'self': it cannot reach a provider itself.

import * as Comlink from "../vendor/comlink.mjs";
import { Storage } from "./storage.js";
import { MlClient, pythonModule } from "./embed-index.js";
import { RPC_METHODS, WORKER_METHODS } from "../app/contract.js";

const PYODIDE_URL = new URL("../pyodide/", import.meta.url).href;
const APP_PACKAGES = ["openmasq"]; // its lock entry depends on faker and phonenumberslite
const BIG_FILES = /\.(wasm|zip|whl)$/; // what the download progress counts
const ZIP_IMPORTS_DIR = "/lib/zip-imports";

const storage = new Storage();
let pyodide = null;
let bridge = null; // openmasq.worker.pyodide_bridge.Worker
let noticeHandler = null;
let lang = "fr";

// ---------------------------------------------------------------- ports to net-worker and llm-worker

class PortStream {
  constructor(onAbort) {
    this.queue = [];
    this.waiting = null;
    this.closed = false;
    this.onAbort = onAbort;
  }

  push(message) {
    if (this.closed) return;
    if (message.type === "end" || message.type === "error") this.closed = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve(message);
    } else {
      this.queue.push(message);
    }
  }

  next() {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    if (this.closed) return Promise.resolve({ type: "error", kind: "aborted", message: "closed" });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  abort() {
    if (this.closed) return;
    this.onAbort();
    this.push({ type: "error", kind: "aborted", message: "aborted" });
  }
}

class PortClient {
  constructor(name) {
    this.name = name;
    this.port = null;
    this.nextId = 1;
    this.streams = new Map();
  }

  attach(port) {
    // Requests in flight on the old port will never be answered: fail them now.
    for (const stream of this.streams.values()) {
      stream.push({ type: "error", kind: "network", message: `${this.name} restarted` });
    }
    this.streams.clear();
    if (this.port) this.port.close();
    this.port = port || null;
    if (!this.port) return;
    this.port.onmessage = ({ data }) => {
      if (!data) return;
      // Progress (the local model loading) is a notice even when it names the request it delays.
      if (data.type === "progress") {
        notice({ type: `${this.name}-progress`, loaded: data.loaded, total: data.total });
        return;
      }
      if (data.id === undefined) return;
      const stream = this.streams.get(data.id);
      if (!stream) return;
      if (data.type === "end" || data.type === "error") this.streams.delete(data.id);
      stream.push(data);
    };
  }

  open(specJson) {
    const id = this.nextId++;
    const port = this.port;
    const stream = new PortStream(() => {
      this.streams.delete(id);
      port?.postMessage({ id, type: "abort" });
    });
    if (!port) {
      stream.push({ type: "error", kind: "network", message: `no ${this.name} connected` });
      return stream;
    }
    this.streams.set(id, stream);
    port.postMessage({ id, ...JSON.parse(specJson) });
    return stream;
  }
}

const net = new PortClient("net");
const llm = new PortClient("llm");
const ml = new MlClient(); // ml-worker (issue 7): NER spans and the memory's embedding index
const egress = {
  open: (route, specJson) => (route === "llm" ? llm : net).open(specJson),
  online: () => self.navigator.onLine !== false,
};

function notice(message) {
  if (message.type === "locked") storage.lock();
  if (noticeHandler) Promise.resolve(noticeHandler(message)).catch(() => {});
}

// ---------------------------------------------------------------- boot with real progress

// Pyodide fetches its wasm, its standard library and the wheels itself; counting the bytes of
// those responses as they stream is the real download progress, with nothing fetched twice.
function countingFetch(report) {
  const original = self.fetch;
  self.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!response.ok || !response.body || !BIG_FILES.test(new URL(url, self.location.href).pathname)) {
      return response;
    }
    const label = new URL(url, self.location.href).pathname.split("/").pop();
    const file = { label, loaded: 0, total: Number(response.headers.get("content-length")) || 0 };
    report(file);
    const counter = new TransformStream({
      transform(chunk, controller) {
        file.loaded += chunk.byteLength;
        report(file);
        controller.enqueue(chunk);
      },
      flush() {
        report({ ...file, done: true });
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return () => {
    self.fetch = original;
  };
}

/** @param {string[]} names @param {(message: string) => void} [log] */
async function loadPackagesOrThrow(names, log = () => {}) {
  // loadPackage reports a failed download only through errorCallback and resolves anyway.
  const errors = [];
  const loaded = await pyodide.loadPackage(names, {
    messageCallback: (msg) => log(msg),
    errorCallback: (msg) => errors.push(msg),
    checkIntegrity: true,
  });
  const normal = (name) => name.toLowerCase().replace(/[-_.]+/g, "-");
  const got = new Set(loaded.map((pkg) => normal(pkg.name)));
  const missing = names.filter((name) => !got.has(normal(name)));
  if (errors.length || missing.length) {
    throw new Error(`loadPackage failed: missing [${missing.join(", ")}]; errors: ${errors.join(" | ")}`);
  }
  return loaded.map((pkg) => ({ name: pkg.name, version: pkg.version, fileName: pkg.fileName }));
}

/** The boot's progress events, kept for a listener that comes later (the page asks for them once
 *  its own modules have loaded, while the boot has been running since this worker started). */
class ProgressLog {
  constructor() {
    this.events = [];
    this.listener = null;
  }

  say(progress) {
    this.events.push(progress);
    this.forward(progress);
  }

  listen(listener) {
    if (!listener || this.listener) return;
    this.listener = listener;
    this.events.forEach((progress) => this.forward(progress));
  }

  forward(progress) {
    if (this.listener) Promise.resolve(this.listener(progress)).catch(() => {});
  }
}

/** The app's wheels imported from the wheel itself rather than unpacked (pyodide/zip-imports.json,
 *  written by the build): each fetched, checked against its sha256, written whole, put on sys.path. */
async function mountZipImports() {
  const listed = JSON.parse(new TextDecoder().decode(await fetchBytes(new URL("zip-imports.json", PYODIDE_URL), "default")));
  pyodide.FS.mkdirTree(ZIP_IMPORTS_DIR);
  for (const { file_name: name, sha256 } of listed) {
    const bytes = await fetchBytes(new URL(name, PYODIDE_URL), "default");
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
      (byte) => byte.toString(16).padStart(2, "0")).join("");
    if (digest !== sha256) throw new Error(`${name}: sha256 mismatch (got ${digest}, locked ${sha256}); not loaded`);
    const path = `${ZIP_IMPORTS_DIR}/${name}`;
    pyodide.FS.writeFile(path, bytes);
    pyodide.runPython(`import sys\nif ${JSON.stringify(path)} not in sys.path: sys.path.append(${JSON.stringify(path)})`);
  }
}

async function doBoot(say) {
  /** @type {Record<string, number>} */
  const timings = { started_ms: performance.now() }; // since this worker was created: its own scripts loading
  const files = new Map();
  let stage = "download";
  const report = (file) => {
    files.set(file.label, file);
    let loaded = 0;
    let total = 0;
    for (const f of files.values()) {
      loaded += f.loaded;
      total += Math.max(f.total, f.loaded);
    }
    if (file.done && file.label.endsWith(".wasm")) stage = "compile";
    say({ stage: file.done && file.label.endsWith(".wasm") ? "compile" : stage === "compile" ? "compile" : "download",
      loaded, total, label: file.label });
  };
  let started = performance.now();
  const restore = countingFetch(report);
  try {
    const { loadPyodide } = await import(new URL("pyodide.mjs", PYODIDE_URL).href);
    pyodide = await loadPyodide({ indexURL: PYODIDE_URL, lockFileURL: new URL("pyodide-lock.json", PYODIDE_URL).href });
    timings.load_pyodide_s = (performance.now() - started) / 1000;
    stage = "download";
    started = performance.now();
    await loadPackagesOrThrow(APP_PACKAGES);
    await mountZipImports();
    timings.packages_s = (performance.now() - started) / 1000;
  } finally {
    restore();
  }
  say({ stage: "import", loaded: 0, total: 0, label: "openmasq" });
  started = performance.now();
  const module = pyodide.pyimport("openmasq.worker.pyodide_bridge");
  pyodide.registerJsModule("openmasq_ml", pythonModule(ml, () => storage.records(), () => storage.current()));
  bridge = module.start(egress, (text) => notice(JSON.parse(text)));
  const modules = JSON.parse(module.import_engine()); // now, not at the first send
  module.destroy();
  timings.import_s = (performance.now() - started) / 1000;
  say({ stage: "ready", loaded: 0, total: 0, label: `Pyodide ${pyodide.version}` });
  compileInIdleSlices();
  return { version: pyodide.version, timings, modules };
}

/** The engine's patterns the boot did not need (openmasq.patterns), compiled while the page waits
 *  for a passphrase: a dozen at a time (some tens of ms), the page's calls coming in between. */
async function compileInIdleSlices() {
  const patterns = pyodide.pyimport("openmasq.patterns");
  try {
    while (patterns.compile_pending(12) > 0) await new Promise((resolve) => setTimeout(resolve, 0));
  } catch (error) {
    console.warn("compiling the engine's patterns ahead failed; they compile on first use", error);
  } finally {
    patterns.destroy();
  }
}

function booted() {
  if (!bridge) {
    const error = new Error("the Python worker has not finished booting");
    error.name = "NotReady";
    throw error;
  }
  return bridge;
}

function named(error) {
  const out = new Error(error.message);
  out.name = error.name;
  return out;
}

async function py(method, args = [], onEvent = null) {
  const emit = onEvent ? (text) => Promise.resolve(onEvent(JSON.parse(text))).catch(() => {}) : undefined;
  const answer = JSON.parse(await booted().call(method, JSON.stringify(args), emit));
  if (answer.error) throw named(answer.error);
  return answer.ok;
}

/** A file's bytes go to Python as they are (not as JSON); its progress events come back as a send's do. */
async function readAttachment(key, name, type, buffer, onEvent) {
  const emit = onEvent ? (text) => Promise.resolve(onEvent(JSON.parse(text))).catch(() => {}) : undefined;
  const answer = JSON.parse(await booted().read_attachment(key, name, type || "", new Uint8Array(buffer), emit));
  if (answer.error) throw named(answer.error);
  return answer.ok;
}

/** api.<method>(...args[, onEvent]) for each RPC method; a method marked `events` takes the page's event
 *  callback as its last argument (a Comlink proxy, a function here). Missing arguments take Python's defaults. */
function pythonMethods(methods) {
  const out = {};
  for (const [name, { events }] of Object.entries(methods)) {
    out[name] = (...args) => {
      const onEvent = events && typeof args.at(-1) === "function" ? args.pop() : null;
      return py(name, args, onEvent);
    };
  }
  return out;
}

async function openAccount(account) {
  await booted().open(storage.records());
  return account;
}

// ---------------------------------------------------------------- the API the page calls

const api = {
  /** @param {{netPort?: MessagePort, lang?: string}} [options] */
  async init({ netPort, lang: wanted } = {}) {
    // A port may come later (setNetPort: the page starts net-worker once the service worker controls it).
    if (netPort) net.attach(netPort);
    if (wanted) lang = wanted;
    return { lang };
  },
  setNetPort(port) {
    net.attach(port);
  },
  setMlPort(port) {
    ml.attach(port);
  },
  setLlmPort(port) {
    llm.attach(port);
  },
  setNoticeHandler(handler) {
    noticeHandler = handler;
  },
  /** The boot began when this worker started; the listener gets the progress so far, then the rest. */
  boot(onProgress) {
    bootProgress.listen(onProgress);
    return booting;
  },

  // accounts (storage.js); a successful create/unlock opens the account in Python
  listAccounts: () => storage.listAccounts(),
  current: () => storage.current(),
  async createAccount(label, passphrase, remember = false) {
    booted();
    return openAccount(await storage.createAccount(label, passphrase, remember));
  },
  async unlock(id, passphrase, remember = false) {
    booted();
    return openAccount(await storage.unlock(id, passphrase, remember));
  },
  async unlockRemembered(id) {
    booted();
    return openAccount(await storage.unlockRemembered(id));
  },
  lock() {
    bridge?.close();
    storage.lock();
  },
  async deleteAccount(id) {
    if (storage.current()?.id === id) {
      bridge?.close();
      storage.lock();
    }
    await storage.deleteAccount(id);
  },
  renameAccount: (id, label) => storage.renameAccount(id, label),

  // Every Python method of the contract (RPC_METHODS, generated from worker/dispatch.py) through one door:
  // the page calls api.send(id, text, onEvent) or api.call("send", [id, text], onEvent) alike.
  ...pythonMethods(RPC_METHODS),
  call: (method, args = [], onEvent = null) => py(method, args, onEvent),
  // a file's bytes go to Python as they are, not as JSON
  readAttachment: (key, name, type, buffer, onEvent) => readAttachment(key, name, type, buffer, onEvent),
  // the groups' doors, kept for their callers: memory(method, args) is call(method, args)
  memory: (method, args = []) => py(method, args),
  backup: (method, args = []) => py(method, args),
  instructions: (method, args = []) => py(method, args),
  image: (method, args = []) => py(method, args),

  // tests: the core suite inside this worker's own Pyodide (tests/pyodide/)
  runPytest: (config, onEvent) => runPytest(config, onEvent),
};

// ---------------------------------------------------------------- the in-app test runner

const RUNNER_DIR = "/tmp/openmasq-runner";

/** @param {string | URL} url @param {RequestCache} [cache] */
async function fetchBytes(url, cache = "no-store") {
  const response = await fetch(url, { cache });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// config: packages (lock names: pytest, hypothesis...), testsZipUrl, recorderUrl, projectDir, args,
// recorderOptions. Resolves to {result} or {error, output, events}: the recorder's events (collected,
// start, outcome...) up to a fatal crash of Pyodide say which test was running.
async function runPytest(config, onEvent) {
  const output = [];
  const events = [];
  const decoder = new TextDecoder();
  const sink = { write: (bytes) => (output.push(decoder.decode(bytes, { stream: true })), bytes.length) };
  try {
    const boot = await api.boot();
    pyodide.setStdout(sink);
    pyodide.setStderr(sink);
    const timings = { ...boot.timings };
    let start = performance.now();
    const loaded = await loadPackagesOrThrow(config.packages || []);
    timings.packages_s += (performance.now() - start) / 1000;
    pyodide.FS.mkdirTree(config.projectDir);
    pyodide.unpackArchive(await fetchBytes(config.testsZipUrl), "zip", { extractDir: config.projectDir });
    pyodide.FS.mkdirTree(RUNNER_DIR);
    pyodide.FS.writeFile(`${RUNNER_DIR}/openmasq_test_recorder.py`, await fetchBytes(config.recorderUrl));
    start = performance.now();
    const namespace = pyodide.globals.get("dict")();
    namespace.set("request", JSON.stringify({ args: config.args, recorderOptions: config.recorderOptions || {},
      runnerDir: RUNNER_DIR, projectDir: config.projectDir }));
    namespace.set("emit", (text) => {
      const event = JSON.parse(text);
      events.push(event);
      if (onEvent) Promise.resolve(onEvent(event)).catch(() => {});
    });
    const text = pyodide.runPython(
      `
import importlib, json, os, sys
# unpackArchive leaves the import system's cached directory listings as they were.
importlib.invalidate_caches()
request = json.loads(request)
sys.path.insert(0, request["runnerDir"])
os.chdir(request["projectDir"])
import openmasq_test_recorder
json.dumps(openmasq_test_recorder.run(request["args"], emit=emit, **request["recorderOptions"]))
`,
      { globals: namespace },
    );
    namespace.destroy();
    timings.pytest_s = (performance.now() - start) / 1000;
    const result = { ...JSON.parse(text), loaded, timings, pyodide_version: pyodide.version, output: output.join("") };
    return { result };
  } catch (error) {
    // The events so far travel with the error: after a fatal crash they are all that is left.
    return { error: error && error.stack ? error.stack : String(error), output: output.join(""), events };
  } finally {
    if (pyodide) {
      pyodide.setStdout();
      pyodide.setStderr();
    }
  }
}

// Pyodide's boot is the long pole of the app's start: it begins now, not when the page asks.
const bootProgress = new ProgressLog();
const booting = doBoot((progress) => bootProgress.say(progress));
booting.catch(() => {}); // reported to whoever awaits api.boot()

// The contract lists this worker's own methods too: a method added here and not there (or the reverse) is
// a drift the page would only meet at run time.
const ownMethods = Object.keys(api).filter((name) => !(name in RPC_METHODS)).sort();
if (ownMethods.join() !== [...WORKER_METHODS].sort().join()) {
  throw new Error(`py-worker's own methods [${ownMethods}] differ from the contract's [${WORKER_METHODS}]`);
}

Comlink.expose(api);
