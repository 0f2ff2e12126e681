// Model replies as sanitised HTML: marked parses, DOMPurify cleans. The reply is rendered as the model
// wrote it (with its fakes); the page then restores real values into text nodes only (reply.js), so no
// attribute (a link target, an image source, a title) ever holds a real value. Nothing in a reply may
// make the browser fetch anything on its own.
import { Marked, DOMPurify } from "./lib.js";

const marked = new Marked({ gfm: true, breaks: true, async: false });

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
  return DOMPurify.sanitize(marked.parse(String(text ?? "")), SANITIZE);
}

/** A reply the page only has with real values in it (saved before the model's own text was kept): its
 *  links lose their targets and its images their sources, so nothing real sits in an attribute. */
export function renderRestoredOnly(text) {
  installHooks();
  const fragment = DOMPurify.sanitize(marked.parse(String(text ?? "")), { ...SANITIZE, RETURN_DOM_FRAGMENT: true });
  for (const el of fragment.querySelectorAll("a, img")) {
    el.replaceWith(document.createTextNode(el.tagName === "IMG" ? el.getAttribute("alt") || "" : el.textContent));
  }
  for (const el of fragment.querySelectorAll("*")) {
    for (const attr of [...el.attributes]) el.removeAttribute(attr.name); // a code block's class names its language
  }
  const box = document.createElement("div");
  box.append(fragment);
  return box.innerHTML;
}
