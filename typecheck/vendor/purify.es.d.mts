// vendor/purify.es.mjs is node_modules/dompurify/dist/purify.es.mjs.
export * from "dompurify";
export { default } from "dompurify";
