// vendor/marked.esm.js is node_modules/marked/lib/marked.esm.js.
export * from "marked";
