// Globals the workers use that TypeScript's webworker library does not declare.

// vendor/pouchdb.min.js is a classic script: importing it sets self.PouchDB (sync-worker.js).
declare var PouchDB: any;

// JSPI (WebAssembly.Suspending), which wllama's build needs; not in TypeScript 5.9's lib yet.
declare namespace WebAssembly {
  var Suspending: undefined | (new (fn: (...args: any[]) => Promise<any>) => object);
}
