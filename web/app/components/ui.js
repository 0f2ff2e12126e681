// Shared building blocks: modal dialogs (native <dialog>, so focus and Escape behave), confirmations,
// toasts in a live region, and labelled form fields.
import { html, useEffect, useLayoutEffect, useRef, useState, createContext, useContext } from "../lib.js";
import { t } from "../i18n.js";
import { Icon } from "./icons.js";
import { publishToastsHeight } from "./toast-room.js";

let nextId = 0;
export const uid = (prefix = "id") => `${prefix}-${++nextId}`;

export function useId(prefix) {
  const ref = useRef(null);
  if (ref.current === null) ref.current = uid(prefix);
  return ref.current;
}

/** Whether the media `query` matches now; the component renders again when the answer changes (a window
 *  widened past a phone's width, a tablet turned), so what depends on it is never left stale. */
export function useMediaQuery(query) {
  const matches = () => typeof matchMedia === "function" && matchMedia(query).matches;
  const [now, setNow] = useState(matches);
  useEffect(() => {
    if (typeof matchMedia !== "function") return undefined;
    const list = matchMedia(query);
    const on = () => setNow(list.matches);
    on();
    list.addEventListener("change", on);
    return () => list.removeEventListener("change", on);
  }, [query]);
  return now;
}

/** A modal dialog shown while mounted; Escape or the close button call onClose. */
const FOCUSABLE = "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), "
  + "textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";

/** A modal <dialog> lets Tab leave for the browser's own controls after its last element: this
 *  keydown handler keeps the cycle inside `container` (a radio group is one stop: its checked radio). */
export function keepTabInside(container, e) {
  if (e.key !== "Tab" || !container) return;
  const items = [...container.querySelectorAll(FOCUSABLE)].filter((el) => el.getClientRects().length
    && !(el.type === "radio" && !el.checked));
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  if (e.shiftKey && (document.activeElement === first || !container.contains(document.activeElement))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/** Shows `ref`'s <dialog> as a modal while the component is mounted (then `onShown(dialog)`); on the
 *  way out it closes it first, since the page behind a modal is inert and refuses focus, then gives
 *  focus back to what had it (the button that opened it). */
/** @param {{current: HTMLDialogElement | null}} ref @param {{onShown?: (dialog: HTMLDialogElement) => void}} [options] */
export function useModal(ref, { onShown } = {}) {
  useLayoutEffect(() => {
    const dialog = ref.current;
    const previous = /** @type {HTMLElement | null} */ (document.activeElement);
    if (dialog && !dialog.open) dialog.showModal();
    onShown?.(dialog);
    return () => {
      if (dialog?.open) dialog.close();
      if (previous && typeof previous.focus === "function" && document.contains(previous)) previous.focus();
    };
  }, []);
}

export function Dialog({ title, onClose, children, footer, className = "", labelledBy }) {
  const ref = useRef(null);
  const titleId = useId("dlg");
  useModal(ref);
  const cancel = (e) => { e.preventDefault(); onClose?.(); };
  return html`<dialog ref=${ref} class=${`dialog ${className}`} aria-labelledby=${labelledBy || titleId}
      onCancel=${cancel} onKeyDown=${(e) => keepTabInside(ref.current, e)}>
    <div class="dialog-head">
      <h2 id=${titleId}>${title}</h2>
      <button type="button" class="icon-button" onClick=${() => onClose?.()} aria-label=${t("common.close")}>
        <${Icon} name="close" />
      </button>
    </div>
    <div class="dialog-body">${children}</div>
    ${footer ? html`<div class="dialog-foot">${footer}</div>` : null}
  </dialog>`;
}

/** A yes/no confirmation; `danger` styles the confirm button as destructive. */
export function Confirm({ title, body, confirmLabel, danger, onConfirm, onCancel, children, canConfirm = true }) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try { await onConfirm(); } finally { setBusy(false); }
  };
  return html`<${Dialog} title=${title} onClose=${onCancel} footer=${html`
      <button type="button" class="button" onClick=${onCancel}>${t("common.cancel")}</button>
      <button type="button" class=${`button ${danger ? "danger" : "primary"}`} disabled=${busy || !canConfirm}
        onClick=${run}>${confirmLabel || t("common.confirm")}</button>`}>
    ${body ? html`<p>${body}</p>` : null}
    ${children}
  <//>`;
}

// ---- toasts ---------------------------------------------------------------------------------------

/** @typedef {{action?: () => void, actionLabel?: string, timeout?: number, onExpire?: () => void, tone?: string}} ToastOptions */
/** Shows a toast, `toast(message, options)`, and returns its id. @typedef {(message: string, options?: ToastOptions) => string | void} Toast */
export const ToastContext = createContext(/** @type {Toast} */ (() => {}));
export const useToast = () => useContext(ToastContext);

// Long enough to reach the Undo button on a phone; the same six seconds the reference gives a deletion.
export const UNDO_MS = 6000;
const TOAST_MS = 3500;

/** Toasts expire on their own, but not while the pointer or the focus is on them (WCAG 2.2.1): a
  user reading one, or reaching for its Undo, keeps it; the time left runs again when they leave. */
export function useToasts() {
  const [toasts, setToasts] = useState([]);
  const clocks = useRef(new Map()); // id -> { left, since, timer, expire }
  const held = useRef(false);
  const run = (clock) => {
    clock.since = Date.now();
    clock.timer = setTimeout(clock.expire, clock.left);
  };
  const shown = useRef(toasts);
  shown.current = toasts;
  const plain = useRef(new Map()); // message -> id of the toast showing it, for toasts with nothing to act on
  /** @type {Toast} */
  const push = (message, { action, actionLabel, timeout, onExpire, tone } = {}) => {
    const sameId = !action && !onExpire ? plain.current.get(message) : undefined;
    const same = shown.current.some((x) => x.id === sameId) ? clocks.current.get(sameId) : undefined;
    if (same) { // the same news again ("Copié" twice): its time starts over, no second copy stacks up
      clearTimeout(same.timer);
      same.left = timeout ?? TOAST_MS;
      if (!held.current) run(same);
      return sameId;
    }
    const id = uid("toast");
    if (!action && !onExpire) plain.current.set(message, id);
    const toast = { id, message, action, actionLabel, tone };
    setToasts((list) => [...list.slice(-3), toast]);
    const clock = { left: timeout ?? (action ? UNDO_MS : TOAST_MS), timer: null };
    clock.expire = () => {
      forget(id);
      setToasts((list) => list.filter((x) => x.id !== id));
      onExpire?.();
    };
    clocks.current.set(id, clock);
    if (!held.current) run(clock);
    return id;
  };
  const forget = (id) => {
    clocks.current.delete(id);
    for (const [message, shown] of plain.current) if (shown === id) plain.current.delete(message);
  };
  const dismiss = (id) => {
    clearTimeout(clocks.current.get(id)?.timer);
    forget(id);
    setToasts((list) => list.filter((x) => x.id !== id));
  };
  const hold = (on) => {
    if (held.current === on) return;
    held.current = on;
    for (const clock of clocks.current.values()) {
      if (on) {
        clearTimeout(clock.timer);
        clock.left = Math.max(0, clock.left - (Date.now() - clock.since));
      } else run(clock);
    }
  };
  return { toasts, push, dismiss, hold };
}

export function Toasts({ toasts, dismiss, hold }) {
  const region = useRef(null);
  useEffect(() => publishToastsHeight(region.current), []); // the chat keeps this much room (toast-room.js)
  // A toast that goes while held (its own close button) must not leave the others paused.
  useEffect(() => { if (!toasts.length) hold(false); }, [toasts.length]);
  const leaveFocus = (e) => { if (!region.current?.contains(e.relatedTarget)) hold(false); };
  return html`<div class="toasts" role="status" aria-live="polite" ref=${region}
      onPointerEnter=${() => hold(true)} onPointerLeave=${() => hold(region.current?.contains(document.activeElement))}
      onfocusin=${() => hold(true)} onfocusout=${leaveFocus}>
    ${toasts.map((toast) => html`<div key=${toast.id} class=${`toast ${toast.tone || ""}`}>
      <span>${toast.message}</span>
      ${toast.action ? html`<button type="button" class="button small" onClick=${() => {
        dismiss(toast.id);
        toast.action();
      }}>${toast.actionLabel || t("common.undo")}</button>` : null}
      <button type="button" class="icon-button small" aria-label=${t("common.close")}
        onClick=${() => dismiss(toast.id)}><${Icon} name="close" size=${16} /></button>
    </div>`)}
  </div>`;
}

// ---- fields ---------------------------------------------------------------------------------------

export function Field({ label, help, error, children, id }) {
  const helpId = help ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${children}
    ${help ? html`<p class="help" id=${helpId}>${help}</p>` : null}
    ${error ? html`<p class="field-error" id=${errorId} role="alert">${error}</p>` : null}
  </div>`;
}

/** A file field that speaks the app's language (the browser's own button and its "no file chosen"
 *  speak the browser's): the label, then a button that opens the hidden input `id`. */
export function FilePicker({ id, label, accept, onChange }) {
  const input = useRef(null);
  return html`<div class="field">
    <label for=${id} id=${`${id}-label`}>${label}</label>
    <input ref=${input} id=${id} type="file" accept=${accept} class="visually-hidden" tabindex="-1" aria-hidden="true"
      onChange=${onChange} />
    <button type="button" class="button file-button" id=${`${id}-button`} aria-labelledby=${`${id}-label ${id}-button`}
      onClick=${() => input.current?.click()}><${Icon} name="file" size=${16} />${t("common.chooseFile")}</button>
  </div>`;
}

export function describedBy(id, help, error) {
  return [help ? `${id}-help` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

export function Spinner({ label }) {
  return html`<span class="spinner" role="progressbar" aria-label=${label || t("common.loading")}></span>`;
}

/** Runs an async action with a busy flag; returns [run, busy].
 * @returns {[<T>(fn: () => Promise<T> | T) => Promise<T>, boolean]} */
export function useBusy() {
  const [busy, setBusy] = useState(false);
  const alive = useRef(true);
  useEffect(() => () => { alive.current = false; }, []);
  const run = async (fn) => {
    setBusy(true);
    try { return await fn(); } finally { if (alive.current) setBusy(false); }
  };
  return [/** @type {<T>(fn: () => Promise<T> | T) => Promise<T>} */ (run), busy];
}

export function errorMessage(err) {
  if (!err) return "";
  if (typeof err === "string") return err;
  return err.message || String(err);
}
