// web/sw.js is a template: `openmasq build` replaces these three names with JSON (py/openmasq/site/build.py,
// render_service_worker; the shapes are those of manifest_doc and policies there).
declare const __BUILD_HASH__: string;
declare const __MANIFEST__: {
  build: string;
  filesCache: string;
  fileKeyPrefix: string;
  partialCache: string;
  appGroup: string;
  files: { path: string; sha256: string; size: number; group: string }[];
};
declare const __POLICIES__: {
  page: string;
  byPath: Record<string, string>;
  egressScripts: string[];
  egressTemplate: string;
  maxOrigins: number;
  headers: Record<string, string>;
};

// sw.js runs in a ServiceWorkerGlobalScope, but the webworker library types `self` as WorkerGlobalScope
// (for every kind of worker): the service worker's members and events, added to it for this project only.
interface WorkerGlobalScope {
  readonly registration: ServiceWorkerRegistration;
  readonly clients: Clients;
  skipWaiting(): Promise<void>;
  addEventListener<K extends keyof ServiceWorkerGlobalScopeEventMap>(
    type: K, listener: (this: ServiceWorkerGlobalScope, event: ServiceWorkerGlobalScopeEventMap[K]) => any,
    options?: boolean | AddEventListenerOptions): void;
}
