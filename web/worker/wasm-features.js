// What this browser's WebAssembly lacks for wllama's default build of the offline model, which suspends wasm on
// JS promises (JSPI, WebAssembly.Suspending) and addresses 64-bit memory (memory64). Without either (Safari and
// other WebKit browsers), wllama's compatibility build runs instead (Asyncify, 32-bit memory; slower): the build
// marks its files in files.json with the condition below, the page downloads them only where it holds
// (downloads.js), and llm-worker.js loads them. Shared by the page and the worker; no state.

// The smallest module with one 64-bit memory (memory section: one memory, flags 0x04 = memory64, minimum 0).
const MEMORY64_MODULE = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x05, 0x03, 0x01, 0x04, 0x00]);

/** Whether wllama's default build cannot run here, and its compatibility build must. */
export function needsWasmCompat() {
  if (typeof WebAssembly !== "object") return true;
  return typeof WebAssembly.Suspending !== "function" || !WebAssembly.validate(MEMORY64_MODULE);
}

/** The conditions a manifest file may be downloaded under (its `only`), each with whether it holds here. The
 * build writes the names (py/openmasq/site/build.py, CONDITIONAL_PREFIXES); tests/host/test_offline_js.py
 * checks that every name it writes is one of these. */
export const CONDITIONS = {
  "wasm-compat": needsWasmCompat,
};

/** Whether a manifest file belongs to its group in this browser: always, or when its condition holds. */
export function fileWanted(file, conditions = CONDITIONS) {
  if (!file.only) return true;
  const holds = conditions[file.only];
  return typeof holds === "function" ? Boolean(holds()) : false; // a condition this page does not know: not here
}
