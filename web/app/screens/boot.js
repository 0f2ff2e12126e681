// The boot screen with the worker's real progress (download, compile, import), and the fatal screen.
import { html, useEffect, useRef, useState } from "../lib.js";
import { t, formatBytes } from "../i18n.js";
import { Icon } from "../components/icons.js";
import { onPrecacheProgress, precacheProgress } from "../offline.js";

const STAGES = ["download", "compile", "import", "ready"];

/** The furthest step reached: the packages are downloaded after Pyodide's WebAssembly is compiled, and a
 * step once ticked stays ticked (the list says how far the start went, the line above what runs now). */
function useFurthest(index) {
  const furthest = useRef(-1);
  furthest.current = Math.max(furthest.current, index);
  return furthest.current;
}

export function BootScreen({ progress }) {
  const stage = progress?.stage || "workers";
  const { loaded = 0, total = 0 } = progress || {};
  const determinate = stage === "download" && total > 0;
  const index = useFurthest(STAGES.indexOf(stage));
  const label = progress?.label;
  return html`<div class="center-screen boot" aria-busy="true">
    <div class="boot-card">
      <div class="brand"><${Icon} name="shield" size=${40} /><h1>${t("app.name")}</h1></div>
      <p class="tagline">${t("app.tagline")}</p>
      <p class="boot-stage" id="boot-stage" aria-live="polite">${t(`boot.stage.${stage}`)}${label ? html` — <span class="muted">${label}</span>` : null}</p>
      ${determinate
        ? html`<progress max=${total} value=${loaded} aria-labelledby="boot-stage"></progress>
            <p class="muted small">${t("boot.bytes", { loaded: formatBytes(loaded), total: formatBytes(total) })}</p>`
        : html`<progress aria-labelledby="boot-stage"></progress>`}
      <ol class="boot-steps" aria-hidden="true" data-reached=${index}>
        ${STAGES.slice(0, 3).map((s, i) => html`<li class=${i < index ? "done" : i === index ? "current" : ""}>
          ${t(`boot.stage.${s}`)}</li>`)}
      </ol>
      <${PrecacheLine} />
      <p class="muted small">${t("boot.offlineNote")}</p>
    </div>
  </div>`;
}

/** The service worker's install (the app's offline copy) as it reports it: bytes of the app group. */
function PrecacheLine() {
  const [p, setP] = useState(precacheProgress());
  useEffect(() => onPrecacheProgress(setP), []);
  if (p.finished) return html`<p class="muted small" data-testid="precache" data-state="done">${t("offline.precacheDone")}</p>`;
  if (!p.total) return null;
  return html`<div data-testid="precache" data-state="running">
    <progress max=${p.bytes} value=${p.loaded} aria-label=${t("offline.precache", { loaded: "", total: "" })}></progress>
    <p class="muted small">${t("offline.precache", { loaded: formatBytes(p.loaded), total: formatBytes(p.bytes) })}</p>
  </div>`;
}

export function FatalScreen({ message }) {
  return html`<div class="center-screen">
    <div class="boot-card" role="alert">
      <div class="brand"><${Icon} name="warn" size=${36} /><h1>${t("boot.failed")}</h1></div>
      <p>${t("boot.failedHint")}</p>
      <pre class="error-detail">${message}</pre>
      <button type="button" class="button primary" onClick=${() => location.reload()}>${t("boot.reload")}</button>
    </div>
  </div>`;
}
