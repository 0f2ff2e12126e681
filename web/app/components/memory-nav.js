// The Mémoire's place in the navigation: its icon, the count of cards and suggestions to review, and
// a dot when something was remembered while the user was elsewhere (cleared on visiting the page).
import { html, useEffect, useState } from "../lib.js";
import { t } from "../i18n.js";
import { bus } from "../store.js";
import { onMemoryChanged, useMemoryApi } from "./memory-api.js";

export function MemoryIcon({ size = 22 }) {
  // A card with two lines of facts and a bookmark: "what is kept".
  return html`<svg class="icon" width=${size} height=${size} viewBox="0 0 24 24" fill="none" stroke="currentColor"
    stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">
    <path d="M5 4h14v16H5zM8.5 9h7M8.5 13h7M8.5 17h4M15 4v5l1.5-1.2L18 9V4" /></svg>`;
}

export function useMemoryNav(api, route) {
  const mem = useMemoryApi(api);
  const [count, setCount] = useState(0);
  const [dot, setDot] = useState(false);
  useEffect(() => {
    let timer = 0;
    const load = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        try {
          const o = await mem.memoryOverview();
          setCount(o.inbox + o.suggestions);
        } catch { /* locked */ }
      }, 100);
    };
    load();
    const off = onMemoryChanged((notice) => {
      if (notice?.type === "memory" && notice.status === "noted" && !document.querySelector("[data-testid=memory-page]")) {
        setDot(true);
      }
      load();
    });
    const visited = () => setDot(false);
    bus.addEventListener("memory-visited", visited);
    return () => { off(); clearTimeout(timer); bus.removeEventListener("memory-visited", visited); };
  }, [api]);
  useEffect(() => { if (route === "memory") setDot(false); }, [route]);
  return { count, dot };
}

/** The badge and dot inside the navigation button, with their text for screen readers. */
export function MemoryNavExtra({ count, dot }) {
  return html`${count ? html`<span class="nav-badge" data-testid="memory-badge">${count}
      <span class="visually-hidden"> — ${t("nav.memoryInbox", { n: count })}</span></span>` : null}
    ${dot ? html`<span class="nav-dot" data-testid="memory-dot"><span class="visually-hidden">${t("nav.memoryNoted")}</span></span>` : null}`;
}
