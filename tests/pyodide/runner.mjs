// Runs a pytest suite inside an already loaded Pyodide and returns the recorder's JSON.
// Kept free of page and worker plumbing so the app's own py-worker can reuse it.

const RUNNER_DIR = "/tmp/openmasq-runner";

async function fetchBytes(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) {
    throw new Error(`GET ${url} answered ${response.status}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

function normalizeName(name) {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

// loadPackage reports failed downloads only through errorCallback and resolves anyway,
// so every requested name is checked against what it says it loaded.
export async function loadPackagesOrThrow(pyodide, names, log = () => {}) {
  const errors = [];
  const loaded = await pyodide.loadPackage(names, {
    messageCallback: (msg) => log(msg),
    errorCallback: (msg) => errors.push(msg),
    checkIntegrity: true,
  });
  const got = new Set(loaded.map((pkg) => normalizeName(pkg.name)));
  const missing = names.filter((name) => !got.has(normalizeName(name)));
  if (errors.length > 0 || missing.length > 0) {
    throw new Error(
      `loadPackage failed: missing [${missing.join(", ")}]; errors: ${errors.join(" | ")}`,
    );
  }
  return loaded.map((pkg) => ({ name: pkg.name, version: pkg.version, fileName: pkg.fileName }));
}

// unpackArchive extracts into the working directory unless told otherwise: a wheel must be
// pointed at site-packages explicitly, or it lands wherever the process happens to be.
export async function installWheels(pyodide, urls) {
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  for (const url of urls) {
    pyodide.unpackArchive(await fetchBytes(url), "wheel", { extractDir: sitePackages });
  }
}

// options: packages (lock names), wheelUrls (installed as is), testsZipUrl (unpacked into
// projectDir), recorderUrl (recorder.py), args (pytest arguments, relative to projectDir),
// recorderOptions (keyword arguments of recorder.run, e.g. hypothesis_settings).
// onEvent receives each recorder event (collected, collect_error, start, outcome) as it happens:
// after a fatal crash of Pyodide they are all that is left.
export async function runPytestInPyodide(pyodide, options, log = () => {}, onEvent = () => {}) {
  const { packages, wheelUrls = [], testsZipUrl, recorderUrl, args, projectDir } = options;
  const recorderOptions = options.recorderOptions ?? {};
  const timings = {};
  let start = performance.now();
  const loaded = await loadPackagesOrThrow(pyodide, packages, log);
  await installWheels(pyodide, wheelUrls);
  timings.packages_s = (performance.now() - start) / 1000;

  pyodide.FS.mkdirTree(projectDir);
  pyodide.unpackArchive(await fetchBytes(testsZipUrl), "zip", { extractDir: projectDir });
  pyodide.FS.mkdirTree(RUNNER_DIR);
  pyodide.FS.writeFile(`${RUNNER_DIR}/openmasq_test_recorder.py`, await fetchBytes(recorderUrl));

  start = performance.now();
  const namespace = pyodide.globals.get("dict")();
  namespace.set("request", JSON.stringify({ args, recorderOptions, runnerDir: RUNNER_DIR, projectDir }));
  namespace.set("emit", (text) => onEvent(JSON.parse(text)));
  const text = pyodide.runPython(
    `
import importlib, json, os, sys
# unpackArchive, unlike loadPackage, leaves the import system's cached directory listings as
# they were, and a listing made in the same second as the unpack would hide the new files.
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
  return { ...JSON.parse(text), loaded, timings };
}
