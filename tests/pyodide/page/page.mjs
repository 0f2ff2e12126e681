// Test page: starts the module worker and exposes runCoreTests() for the host to await.
// It always resolves, with {result} or with {error, output, events}, so the host sees Pyodide's own
// words and, after a crash, the recorder's events up to it.

const status = document.getElementById("status");

window.runCoreTests = (config) =>
  new Promise((resolve) => {
    const worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module" });
    const events = [];
    const finish = (answer) => {
      clearTimeout(timer);
      worker.terminate();
      status.textContent = answer.error ? "failed" : "done";
      resolve(answer);
    };
    const timeout = () => {
      const error = `no answer from the Pyodide worker after ${config.timeoutMs} ms`;
      finish({ error, output: "", events });
    };
    const timer = setTimeout(timeout, config.timeoutMs);
    worker.onmessage = ({ data }) => {
      if (data.type === "event") {
        events.push(data.event);
      } else if (data.type === "progress") {
        status.textContent = data.message;
      } else if (data.type === "result") {
        finish({ result: data.result });
      } else if (data.type === "error") {
        finish({ error: data.message, output: data.output, events });
      }
    };
    worker.onerror = (event) => finish({ error: `worker error: ${event.message}`, output: "", events });
    worker.postMessage(config);
  });
