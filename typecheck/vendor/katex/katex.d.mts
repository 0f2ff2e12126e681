// vendor/katex/katex.mjs is node_modules/katex/dist/katex.mjs.
export { default } from "katex";
