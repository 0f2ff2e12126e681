// What TypeScript 5.9's libraries lack of WebAssembly, for the page and the workers alike (web/worker/wasm-features.js
// is imported by both): JSPI's WebAssembly.Suspending, which wllama's default build needs.
declare namespace WebAssembly {
  var Suspending: undefined | (new (fn: (...args: any[]) => Promise<any>) => object);
}
