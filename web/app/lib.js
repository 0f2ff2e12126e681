// The one place that names the vendored libraries (copied by the build from node_modules into vendor/).
// Every other page module imports from here, so a renamed vendor file is a one-line change.
export {
  h, html, render, createContext, useState, useReducer, useEffect, useLayoutEffect, useRef, useMemo,
  useCallback, useContext,
} from "../vendor/preact-htm.mjs";
export * as Comlink from "../vendor/comlink.mjs";
export { Marked } from "../vendor/marked.esm.js";
export { default as DOMPurify } from "../vendor/purify.es.mjs";
// Loaded on first need (a reply with code or math), not at boot.
export const loadHighlighter = () => import("../vendor/highlight/index.mjs").then((m) => m.default);
export const loadKatex = () => import("../vendor/katex/katex.mjs").then((m) => m.default);
