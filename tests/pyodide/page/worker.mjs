// Module worker: loads Pyodide from the served dist copy with its patched lock, then runs the suite.

import { runPytestInPyodide } from "../runner.mjs";

self.onmessage = async ({ data: config }) => {
  const output = [];
  const progress = (message) => self.postMessage({ type: "progress", message });
  try {
    const started = performance.now();
    const { loadPyodide } = await import(new URL("pyodide.mjs", config.indexURL).href);
    const pyodide = await loadPyodide({ indexURL: config.indexURL, lockFileURL: config.lockFileURL });
    // Raw writes keep pytest's progress dots on one line, as a terminal would show them.
    const decoder = new TextDecoder();
    const sink = { write: (bytes) => (output.push(decoder.decode(bytes, { stream: true })), bytes.length) };
    pyodide.setStdout(sink);
    pyodide.setStderr(sink);
    const loadSeconds = (performance.now() - started) / 1000;
    progress(`Pyodide ${pyodide.version} loaded in ${loadSeconds.toFixed(2)} s`);
    const onEvent = (event) => self.postMessage({ type: "event", event });
    const result = await runPytestInPyodide(pyodide, config, progress, onEvent);
    result.timings.load_pyodide_s = loadSeconds;
    result.timings.total_s = (performance.now() - started) / 1000;
    result.pyodide_version = pyodide.version;
    result.output = output.join("");
    self.postMessage({ type: "result", result });
  } catch (error) {
    self.postMessage({
      type: "error",
      message: error && error.stack ? error.stack : String(error),
      output: output.join(""),
    });
  }
};
