// Model replies as sanitised HTML: marked parses, DOMPurify cleans. The reply has already been restored
// to real values by the worker, so nothing in it may make the browser fetch anything on its own.
import { Marked, DOMPurify } from "./lib.js";

const marked = new Marked({ gfm: true, breaks: true, async: false });

// Only same-document images (data:/blob:) may load: a remote image URL built by the model would carry
// restored real values to a third party the moment it rendered. The CSP blocks it too; this says it.
const SAFE_IMAGE = /^(data:image\/(png|gif|jpeg|webp);|blob:)/i;

let hooked = false;
function installHooks() {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
    if (node.tagName === "IMG" && !SAFE_IMAGE.test(node.getAttribute("src") || "")) {
      const alt = node.getAttribute("alt") || "";
      node.replaceWith(document.createTextNode(alt ? `[${alt}]` : ""));
    }
  });
}

export function renderMarkdown(text) {
  installHooks();
  const raw = marked.parse(String(text ?? ""));
  return DOMPurify.sanitize(raw, {
    USE_PROFILES: { html: true },
    // Inline styles would be refused by the page's CSP anyway; forms and media have no place in a reply.
    FORBID_ATTR: ["style"],
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "video", "audio", "iframe", "source"],
  });
}
