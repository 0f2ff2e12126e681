// vendor/highlight/index.mjs: highlight.js's core with the languages the build registers (site/richtext.py).
export { default } from "highlight.js";
