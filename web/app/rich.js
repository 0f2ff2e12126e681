// Rich replies (issue 18): code blocks highlighted (highlight.js) with a language label and a copy button,
// math typeset (KaTeX), tables that scroll sideways instead of breaking words. It works on a reply's DOM
// once its text nodes hold the restored values (reply.js): what it reads is text, what it writes is text
// nodes and fixed class names, so no real value ever reaches an attribute. KaTeX runs without `trust` (no
// \href, \url, \includegraphics, \htmlData...), colour commands lose their colour (a colour is a word the
// user could have written: it would sit in a style attribute), and a TeX error shows the source as text
// (KaTeX's own error span puts the source in a title). KaTeX's inline styles are set through the CSSOM,
// which the page's CSP allows (style-src 'self' refuses style attributes in markup, not element.style).
import { DOMPurify, loadHighlighter, loadKatex } from "./lib.js";
import { t } from "./i18n.js";
import { MATH_INLINE, MATH_DISPLAY } from "./markdown.js";

// A longer block is shown plain: highlight.js works in one synchronous run. Measured (node 20, 2-core dev
// machine, grammars compiled): 20 kB of Python, JavaScript or C++ took 6-18 ms, 100 kB 40-150 ms, 1 MB
// 0.5-1.8 s; a pasted log of a megabyte would hold the page.
export const HIGHLIGHT_MAX = 50_000;
// Work is cut in slices of about this many milliseconds, the page handling input in between.
const SLICE_MS = 30;
// Highlighted markup and typeset math, by their source: a streaming reply is re-rendered at each delta
// and only its new blocks are new.
const HIGHLIGHTED = new Map();
const TYPESET = new Map();
const CACHE_MAX = 20_000;
// A label is the language as the model named it, when it looks like a language name.
const LABEL = /^[\w+#.-]{1,24}$/;
const COPY_ACTION = "copy-code";

// Colour commands keep their content and drop the colour (argument counts as KaTeX's own commands).
const NO_COLOURS = {
  "\\color": "\\@secondoftwo{#1}{}",
  "\\textcolor": "\\@firstoftwo{#2}{#1}",
  "\\colorbox": "\\@firstoftwo{\\text{#2}}{#1}",
  "\\fcolorbox": "\\@firstoftwo{\\text{#3}}{#1#2}",
};
const KATEX_OPTIONS = { throwOnError: true, trust: false, strict: "ignore", output: "htmlAndMathml", maxSize: 50, maxExpand: 1000 };

function remember(cache, key, value) {
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, value);
}

/** A function to await between items: it yields to the page once a slice of work is spent, and answers
 *  whether the work should stop (`stale()`: a newer text of the reply is waiting to be rendered). */
function slicer(stale) {
  let since = performance.now();
  return async () => {
    if (performance.now() - since >= SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      since = performance.now();
    }
    return Boolean(stale?.());
  };
}

/** The language a fenced block names (marked writes it as `language-<name>` on the code element). */
export function languageOf(code) {
  const name = [...code.classList].find((c) => c.startsWith("language-"));
  return name ? name.slice("language-".length).toLowerCase() : "";
}

/** The TeX of one math element typeset in a detached element, or null when KaTeX refuses it. */
function typesetNode(katex, tex, display) {
  const key = `${display ? "D" : "I"}\u0000${tex}`;
  if (TYPESET.has(key)) return TYPESET.get(key);
  const box = document.createElement("span");
  let done;
  try {
    katex.render(tex, box, { ...KATEX_OPTIONS, displayMode: display, macros: { ...NO_COLOURS } });
    done = box;
  } catch {
    done = null;
  }
  remember(TYPESET, key, done);
  return done;
}

function typeset(katex, el) {
  const display = el.classList.contains(MATH_DISPLAY);
  const tex = el.textContent;
  const done = typesetNode(katex, tex, display);
  if (done) {
    el.replaceChildren(...done.cloneNode(true).childNodes);
  } else { // shown as written, delimiters included, so nothing is silently lost
    el.classList.add("math-error");
    el.textContent = display ? `$$${tex}$$` : `$${tex}$`;
  }
}

function highlighted(hljs, language, text) {
  const key = `${language}\u0000${text}`;
  if (HIGHLIGHTED.has(key)) return HIGHLIGHTED.get(key);
  // highlight.js escapes the code and wraps tokens in spans named by its grammar; the sanitiser keeps
  // exactly that, whatever a grammar might emit.
  const markup = DOMPurify.sanitize(hljs.highlight(text, { language, ignoreIllegals: true }).value,
    { ALLOWED_TAGS: ["span"], ALLOWED_ATTR: ["class"] });
  remember(HIGHLIGHTED, key, markup);
  return markup;
}

function decorate(hljs, code) {
  const pre = code.parentElement;
  if (pre.parentElement?.classList.contains("code-block")) return;
  const language = languageOf(code);
  const known = Boolean(language && hljs?.getLanguage(language));
  const text = code.textContent;
  if (known && text.length <= HIGHLIGHT_MAX) {
    try {
      code.innerHTML = highlighted(hljs, language, text);
      code.classList.add("hljs");
    } catch (err) { // a grammar failing on odd input: the code stays plain
      console.warn("highlight failed", err);
      code.textContent = text;
    }
  }
  const block = document.createElement("div");
  block.className = "code-block";
  block.dataset.language = known ? language : "";
  const head = document.createElement("div");
  head.className = "code-head";
  const label = document.createElement("span");
  label.className = "code-lang";
  label.textContent = LABEL.test(language) ? language : t("code.plain");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "chip code-copy";
  button.dataset.action = COPY_ACTION;
  button.setAttribute("aria-label", t("code.copy"));
  button.textContent = t("common.copy");
  head.append(label, button);
  pre.replaceWith(block);
  block.append(head, pre);
}

function scrollable(table) {
  if (table.parentElement?.classList.contains("table-scroll")) return;
  const box = document.createElement("div");
  box.className = "table-scroll";
  box.tabIndex = 0; // a region that scrolls is reachable from the keyboard
  table.replaceWith(box);
  box.append(table);
}

async function typesetAll(root, pause) {
  const maths = [...root.querySelectorAll(`.${MATH_INLINE}, .${MATH_DISPLAY}`)];
  if (!maths.length) return true;
  const katex = await loadKatex();
  for (const el of maths) {
    typeset(katex, el);
    if (await pause()) return false;
  }
  return true;
}

async function decorateAll(root, pause) {
  const blocks = [...root.querySelectorAll("pre > code")];
  if (!blocks.length) return true;
  const hljs = blocks.some((code) => languageOf(code)) ? await loadHighlighter() : null;
  for (const code of blocks) {
    decorate(hljs, code);
    if (await pause()) return false;
  }
  return true;
}

/** Makes a rendered, restored reply rich, in place; false when it stopped early because `stale()` said a
 *  newer text is waiting (a streaming reply: that one is rendered next). Never throws: what fails stays
 *  as plain text. */
export async function enhanceReply(root, stale = null) {
  const pause = slicer(stale);
  for (const table of root.querySelectorAll("table")) scrollable(table);
  for (const step of [typesetAll, decorateAll]) {
    try {
      if (!(await step(root, pause))) return false;
    } catch (err) {
      console.warn("rich reply", err);
    }
  }
  return true;
}

/** The code a click asks to copy (the restored text the block shows), or null for any other click. */
export function codeToCopy(target, root) {
  const button = target?.closest?.(`[data-action=${COPY_ACTION}]`);
  if (!button || !root?.contains(button)) return null;
  return button.closest(".code-block")?.querySelector("pre code")?.textContent ?? "";
}

export async function copyText(text) {
  if (navigator.clipboard?.writeText) {
    try { await navigator.clipboard.writeText(text); return true; } catch { /* fall through */ }
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.append(area);
  area.select();
  let ok;
  try { ok = document.execCommand("copy"); } catch { ok = false; }
  area.remove();
  return ok;
}
