// A modal sheet for the Mémoire's card panel and review inbox: a side panel on laptops, a bottom
// sheet on phones (large targets, swipe down on its head to dismiss). A native <dialog> opened with
// showModal(), so focus stays inside and Escape closes; focus returns where it was on close.
import { html, useRef } from "../lib.js";
import { t } from "../i18n.js";
import { Icon } from "./icons.js";
import { keepTabInside, useId, useModal } from "./ui.js";

// A downward drag longer than this closes the sheet (about a thumb's travel); shorter snaps back.
const DISMISS_PX = 90;

export function Sheet({ title, onClose, children, footer, className = "", testId }) {
  const ref = useRef(null);
  const titleId = useId("sheet");
  const drag = useRef(null);
  useModal(ref, { onShown: (dialog) => /** @type {HTMLElement | null} */ (dialog?.querySelector(".sheet-title"))?.focus() });

  const cancel = (e) => { e.preventDefault(); onClose?.(); };
  const onKeyDown = (e) => keepTabInside(ref.current, e);
  const onPointerDown = (e) => {
    if (e.button !== 0 || e.target.closest("button")) return;
    drag.current = { y: e.clientY, id: e.pointerId, dy: 0 };
    e.currentTarget.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e) => {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    d.dy = Math.max(0, e.clientY - d.y);
    ref.current.style.transform = d.dy ? `translateY(${d.dy}px)` : "";
  };
  const onPointerUp = (e) => {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    drag.current = null;
    ref.current.style.transform = "";
    if (d.dy > DISMISS_PX) onClose?.();
  };

  return html`<dialog ref=${ref} class=${`sheet ${className}`} aria-labelledby=${titleId} onCancel=${cancel}
      onKeyDown=${onKeyDown}
      onClick=${(e) => { if (e.target === ref.current) onClose?.(); }} data-testid=${testId}>
    <div class="sheet-inner">
      <div class="sheet-head" onPointerDown=${onPointerDown} onPointerMove=${onPointerMove} onPointerUp=${onPointerUp}
          onPointerCancel=${onPointerUp} data-testid="sheet-head">
        <span class="sheet-handle" aria-hidden="true" title=${t("memory.sheetHandle")}></span>
        <h2 id=${titleId} class="sheet-title" tabindex="-1">${title}</h2>
        <button type="button" class="icon-button" onClick=${() => onClose?.()} aria-label=${t("common.close")}
          data-action="close-sheet"><${Icon} name="close" /></button>
      </div>
      <div class="sheet-body">${children}</div>
      ${footer ? html`<div class="sheet-foot">${footer}</div>` : null}
    </div>
  </dialog>`;
}
