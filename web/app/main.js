// Entry point of the page: mounts the application shell.
import { html, render } from "./lib.js";
import { App } from "./app.js";

const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} />`, root);
