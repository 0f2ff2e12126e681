// Room for the toasts in the chat (issue 18, item 10): a toast sits right above the composer, and the
// message list keeps that much room at its end, so a toast never covers the last reply or its actions. The
// toasts' region publishes its height (--toasts-h, and an "openmasq:toasts" event); the chat publishes where
// its composer starts (--composer-space, from the bottom of the viewport) and its middle (--composer-middle, so
// a toast is centred over the conversation, not over the whole window beside the list), and, when the view follows the
// conversation, scrolls to its end as the room grows. CSS custom properties set through the CSSOM: the
// page's CSP refuses style attributes, not this.
import { useEffect, useRef } from "../lib.js";

const root = () => document.documentElement;
export const TOASTS_EVENT = "openmasq:toasts";

/** On the toasts' region: its height, 0 when it shows nothing. */
export function publishToastsHeight(el) {
  if (!el) return () => {};
  const publish = () => {
    const height = el.childElementCount ? Math.ceil(el.getBoundingClientRect().height) : 0;
    if (root().style.getPropertyValue("--toasts-h") === `${height}px`) return;
    root().style.setProperty("--toasts-h", `${height}px`);
    window.dispatchEvent(new CustomEvent(TOASTS_EVENT, { detail: height }));
  };
  const observer = new ResizeObserver(publish);
  observer.observe(el);
  const children = new MutationObserver(publish); // a region emptied keeps no size to observe
  children.observe(el, { childList: true });
  publish();
  return () => { observer.disconnect(); children.disconnect(); root().style.removeProperty("--toasts-h"); };
}

/** In the chat: where the composer starts, and the list kept at its end while it follows the conversation
 * (`follows()`: false while the user reads further up, or while the first run reads from its top). */
export function useToastRoom(listRef, follows, key) {
  const following = useRef(follows);
  following.current = follows; // read when the room changes: whether the view follows the conversation now
  useEffect(() => {
    const list = listRef.current;
    const composer = list?.parentElement?.querySelector("[data-testid=composer]");
    if (!list || !composer) return undefined;
    const place = () => {
      const box = composer.getBoundingClientRect();
      root().style.setProperty("--composer-space", `${Math.max(0, Math.round(window.innerHeight - box.top))}px`);
      root().style.setProperty("--composer-middle", `${Math.round(box.left + box.width / 2)}px`);
    };
    const follow = () => { if (following.current()) list.scrollTop = list.scrollHeight; };
    const observer = new ResizeObserver(() => { place(); follow(); });
    observer.observe(composer);
    observer.observe(list);
    window.addEventListener("resize", place);
    window.addEventListener(TOASTS_EVENT, follow);
    place();
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", place);
      window.removeEventListener(TOASTS_EVENT, follow);
      root().style.removeProperty("--composer-space");
      root().style.removeProperty("--composer-middle");
    };
  }, [key]);
}
