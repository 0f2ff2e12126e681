// Globals the workers use that TypeScript's webworker library does not declare.

// vendor/pouchdb.min.js is a classic script: importing it sets self.PouchDB (sync-worker.js).
declare var PouchDB: any;

// WebAssembly.Suspending (JSPI): wasm.d.ts, shared with the page (web/worker/wasm-features.js runs in both).
