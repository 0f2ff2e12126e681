// vendor/idb-keyval.mjs is node_modules/idb-keyval/dist/index.js.
export * from "idb-keyval";
