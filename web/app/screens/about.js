// About and licences: what the app is, and every library and model it ships with its licence.
import { html, useEffect, useState } from "../lib.js";
import { t, lang } from "../i18n.js";
import { APP, LIBRARIES, MODELS } from "../licences.js";

function useBuildHash() {
  const [hash, setHash] = useState("");
  useEffect(() => {
    const controller = navigator.serviceWorker?.controller;
    if (!controller) return undefined;
    const channel = new MessageChannel();
    channel.port1.onmessage = (e) => { if (e.data?.hash) setHash(String(e.data.hash).slice(0, 12)); };
    controller.postMessage({ type: "status" }, [channel.port2]);
    return () => channel.port1.close();
  }, []);
  return hash;
}

export function AboutScreen() {
  const hash = useBuildHash();
  const l = lang();
  // A page of text only: focusable itself, so a keyboard can scroll it (axe: scrollable-region-focusable).
  return html`<div class="page about" tabindex="0" role="region" aria-labelledby="about-title">
    <header class="page-head"><h1 id="about-title">${t("about.title")}</h1></header>
    <section class="panel">
      <h2>${APP.name}</h2>
      <p>${t("about.body")}</p>
      <p class="muted small">${t("about.version", { v: APP.version })} · ${APP.licence}${hash ? html` · <span class="mono">${hash}</span>` : null}</p>
    </section>
    <section class="panel" aria-labelledby="about-models">
      <h2 id="about-models">${t("about.models")}</h2>
      <ul class="licence-list">
        ${MODELS.map((m) => html`<li key=${m.name}>
          <div><strong>${m.name}</strong> <span class="muted">— ${m.by}</span></div>
          <div class="small">${m.use[l]}</div>
          <div class="small"><span class="badge">${m.licence}</span>
            ${m.attribution ? html` ${m.attribution}${m.link ? html` (<a href=${m.link} target="_blank" rel="noopener noreferrer">${m.link}</a>)` : null}` : null}</div>
        </li>`)}
      </ul>
    </section>
    <section class="panel" aria-labelledby="about-libs">
      <h2 id="about-libs">${t("about.libraries")}</h2>
      <div class="table-wrap">
        <table class="licences">
          <thead><tr><th scope="col">${t("about.name")}</th><th scope="col">${t("about.use")}</th><th scope="col">${t("about.licence")}</th></tr></thead>
          <tbody>
            ${LIBRARIES.map((lib) => html`<tr key=${lib.name}>
              <th scope="row">${lib.name} <span class="muted small">${lib.version}</span></th>
              <td>${lib.use[l]}</td>
              <td><span class="badge">${lib.licence}</span></td>
            </tr>`)}
          </tbody>
        </table>
      </div>
    </section>
  </div>`;
}
