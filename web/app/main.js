// Entry point of the page. py-worker is spawned first, before the UI's modules load: Pyodide's
// boot is the long pole of the start, and the worker begins it as soon as it runs.
/** @type {Worker & {loadError?: string}} */
const pyWorker = new Worker(new URL("../worker/py-worker.js", import.meta.url), { type: "module", name: "py-worker" });
// A failure to load it may come before the app listens: kept for Workers.start.
pyWorker.addEventListener("error", (e) => { pyWorker.loadError ??= e.message || "py-worker failed to load"; });
// The service worker registers as the page loads (a first visit closed early is already installing the
// app's offline copy); its install fetches the app group only (about 41 MB: no model), revalidating what the
// boot itself downloads. The boot screen shows its progress (offline.js).
import("./offline.js").then((m) => m.registerEarly());

const [{ html, render }, { App }] = await Promise.all([import("./lib.js"), import("./app.js")]);
const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} pyWorker=${pyWorker} />`, root);
