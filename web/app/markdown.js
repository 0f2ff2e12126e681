// Model replies as sanitised HTML: marked parses, DOMPurify cleans. The reply is rendered as the model
// wrote it (with its fakes); the page then restores real values into text nodes only (reply.js), so no
// attribute (a link target, an image source, a title) ever holds a real value. Nothing in a reply may
// make the browser fetch anything on its own.
import { Marked, DOMPurify } from "./lib.js";

const marked = new Marked({ gfm: true, breaks: true, async: false });

// Math (issue 18): $...$ and \(...\) inline, $$...$$ and \[...\] displayed. The TeX is kept as the
// text of a span or div whose class says which (fixed values: nothing of the TeX in an attribute); rich.js
// typesets it once its text node holds the restored value. A dollar is math only the way pandoc reads it:
// the opening one is followed by a non-space, the closing one follows a non-space and is not followed by
// a digit, so "$5 and $10" stays prose.
export const MATH_INLINE = "math-inline";
export const MATH_DISPLAY = "math-display";
const INLINE_DOLLAR = /^\$(?=[^\s$])((?:\\[^\n]|[^\\$\n])*?(?:\\[^\n]|[^\s\\$]))\$(?![\d$])/;
const INLINE_PAREN = /^\\\(([\s\S]+?)\\\)/;
const INLINE_DISPLAY = /^\$\$(?!\$)([^\n]+?)\$\$/;
const BLOCK_DOLLARS = /^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/;
const BLOCK_BRACKETS = /^ {0,3}\\\[([\s\S]+?)\\\][ \t]*(?:\n+|$)/;
// A dollar glued to a word or a number before it is a currency or a variable name ("US$5", "a$b").
const GLUED = /[\p{L}\p{N}]$/u;

const escapeText = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const mathBlock = {
  name: "mathBlock",
  level: "block",
  start: (src) => src.match(/^ {0,3}(?:\$\$|\\\[)/m)?.index,
  tokenizer(src) {
    const found = BLOCK_DOLLARS.exec(src) || BLOCK_BRACKETS.exec(src);
    if (found && found[1].trim()) return { type: "mathBlock", raw: found[0], tex: found[1].trim() };
    return undefined;
  },
  renderer: (token) => `<div class="${MATH_DISPLAY}">${escapeText(token.tex)}</div>\n`,
};

const mathInline = {
  name: "mathInline",
  level: "inline",
  start: (src) => src.match(/\$|\\\(/)?.index,
  tokenizer(src, tokens) {
    const display = INLINE_DISPLAY.exec(src);
    if (display && display[1].trim()) return { type: "mathInline", raw: display[0], tex: display[1].trim(), display: true };
    const paren = INLINE_PAREN.exec(src);
    if (paren && paren[1].trim()) return { type: "mathInline", raw: paren[0], tex: paren[1].trim(), display: false };
    const dollar = INLINE_DOLLAR.exec(src);
    if (!dollar || GLUED.test(tokens.at(-1)?.raw ?? "")) return undefined;
    return { type: "mathInline", raw: dollar[0], tex: dollar[1], display: false };
  },
  renderer: (token) => `<span class="${token.display ? MATH_DISPLAY : MATH_INLINE}">${escapeText(token.tex)}</span>`,
};

marked.use({ extensions: [mathBlock, mathInline] });

// Only same-document images (data:/blob:) may load: a remote image URL built by the model would reach a
// third party the moment it rendered. The CSP blocks it too; this says it.
const SAFE_IMAGE = /^(data:image\/(png|gif|jpeg|webp);|blob:)/i;

// Every link of a reply was written by the model: it is marked so, and a click on it asks first (reply.js).
export const MODEL_LINK = "data-model-link";

let hooked = false;
function installHooks() {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
      node.setAttribute(MODEL_LINK, "");
      node.removeAttribute("title"); // the dialog shows the target in full; a title would only repeat fakes
    }
    if (node.tagName === "IMG" && !SAFE_IMAGE.test(node.getAttribute("src") || "")) {
      const alt = node.getAttribute("alt") || "";
      node.replaceWith(document.createTextNode(alt ? `[${alt}]` : ""));
    }
  });
}

const SANITIZE = {
  USE_PROFILES: { html: true },
  // Inline styles would be refused by the page's CSP anyway; forms and media have no place in a reply.
  FORBID_ATTR: ["style"],
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "video", "audio", "iframe", "source"],
};

export function renderMarkdown(text) {
  installHooks();
  return DOMPurify.sanitize(/** @type {string} */ (marked.parse(String(text ?? ""))), SANITIZE);
}

/** A reply the page only has with real values in it (saved before the model's own text was kept): its
 *  links lose their targets and its images their sources, so nothing real sits in an attribute. */
export function renderRestoredOnly(text) {
  installHooks();
  const fragment = DOMPurify.sanitize(/** @type {string} */ (marked.parse(String(text ?? ""))), { ...SANITIZE, RETURN_DOM_FRAGMENT: true });
  for (const el of fragment.querySelectorAll("a, img")) {
    el.replaceWith(document.createTextNode(el.tagName === "IMG" ? el.getAttribute("alt") || "" : el.textContent));
  }
  for (const el of fragment.querySelectorAll("*")) {
    const math = el.classList.contains(MATH_INLINE) ? MATH_INLINE : el.classList.contains(MATH_DISPLAY) ? MATH_DISPLAY : null;
    for (const attr of [...el.attributes]) el.removeAttribute(attr.name); // a code block's class names its language
    if (math) el.className = math; // a fixed value: the TeX itself stays in the text
  }
  const box = document.createElement("div");
  box.append(fragment);
  return box.innerHTML;
}
