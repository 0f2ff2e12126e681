// The smoke run of the built app in Firefox (Debian's firefox-esr, headless), driven over WebDriver BiDi
// by puppeteer-core. Started by e2e/test_engines_firefox.py, which owns the servers:
//   node e2e/engines/firefox_smoke.mjs '{"firefox": ..., "site": ..., "provider": ..., "shots": ...}'
// Each step it finishes is one JSON line on stdout ({"step": name, ...facts}); when it needs the site's
// server stopped it prints {"ask": "stop-site"} and waits for a line on stdin. A failure is
// {"error": message} and exit status 1. The steps and selectors follow e2e/test_chat.py and test_memory.py.
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const config = JSON.parse(process.argv[2]);
const TIMEOUT_MS = config.timeout_ms ?? 120_000;
const stdin = readline.createInterface({ input: process.stdin });
const answers = stdin[Symbol.asyncIterator]();

const STARTED = Date.now();

function say(doc) {
  // at_ms: when the step ended, for the report of where the run's time goes (never asserted on).
  process.stdout.write(JSON.stringify({ ...doc, at_ms: Date.now() - STARTED }) + "\n");
}

async function ask(what) {
  say({ ask: what });
  const { value, done } = await answers.next();
  if (done || value.trim() !== "done") throw new Error(`the test did not do ${what}: ${value}`);
}

const text = (page, selector) => page.$eval(selector, (el) => el.innerText.trim());

async function waitForServiceWorker(page) {
  await page.evaluate(async () => {
    const container = navigator.serviceWorker;
    await container.ready;
    if (!container.controller) {
      await new Promise((resolve) => container.addEventListener("controllerchange", resolve, { once: true }));
    }
    const worker = container.controller;
    while (worker.state !== "activated") {
      await new Promise((resolve) => worker.addEventListener("statechange", resolve, { once: true }));
    }
  });
}

async function createAccount(page, label, passphrase) {
  await page.waitForSelector("#acct-label, .account-list");
  if (await page.$(".account-list")) await page.click(".gate-card button.primary.wide");
  await page.type("#acct-label", label);
  await page.type("#acct-pass", passphrase);
  await page.type("#acct-confirm", passphrase);
  await page.click("form button[type=submit]");
  await page.waitForSelector(".shell .chat");
}

async function addProvider(page, baseUrl) {
  await waitForServiceWorker(page); // it widens net-worker's policy to the new provider
  await page.click("[data-route=providers]");
  await page.click("[data-action=add-provider]");
  await page.select("#prov-kind", "compatible");
  await page.type("#prov-label", "Scripted");
  await page.type("#prov-url", baseUrl);
  await page.click("[data-action=list-models]");
  await page.waitForSelector("#prov-model-pick");
  await page.click("[data-action=save-provider]");
  // Added after a test that worked, it is the default (issue 18): its card carries the badge.
  await page.waitForFunction(() => {
    const card = [...document.querySelectorAll(".provider")].find((el) => el.innerText.includes("Scripted"));
    return Boolean(card && card.querySelector(".badge"));
  });
}

async function sendAndWait(page, message, quote) {
  // The composer and its send button as the chat screen mounts them: typed into once there, sent once enabled
  // (a click on a button not yet enabled sends nothing, and the wait below would then time out).
  await page.waitForSelector("#composer-input");
  await page.type("#composer-input", message);
  await page.waitForFunction((m) => document.querySelector("#composer-input")?.value === m, {}, message);
  await page.waitForSelector("[data-action=send]:not([disabled])");
  await page.click("[data-action=send]");
  await page.waitForFunction(
    (q) => [...document.querySelectorAll("[data-role=assistant]:not([aria-busy])")]
      .some((el) => el.innerText.includes(q) && el.querySelector(".message-actions")),
    { timeout: TIMEOUT_MS }, quote);
}

let page = null;
const errors = [];

/** Downloads an on-demand model from Settings as a user does, then goes back to the chat; its row's notes. */
async function downloadModel(page, group) {
  await page.click("[data-route=settings]");
  await page.waitForSelector(`[data-model=${group}] [data-action=download]`);
  const compat = Boolean(await page.$(`[data-model=${group}] [data-testid=model-compat]`));
  await page.click(`[data-model=${group}] [data-action=download]`);
  await page.waitForSelector(`[data-model=${group}][data-state=ready]`);
  await page.click("[data-route=chat]");
  return { compat };
}

async function run() {
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: config.firefox,
    headless: true,
    protocol: "webDriverBiDi",
    // French, as the Chromium suite (the selectors and texts of e2e/test_chat.py).
    extraPrefsFirefox: { "intl.accept_languages": "fr-FR, fr", "intl.locale.requested": "fr-FR" },
  });
  try {
    say({ step: "launched", version: await browser.version() });
    page = await browser.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await page.setViewport({ width: 1280, height: 800 });

    await page.goto(config.site);
    await page.waitForSelector("#acct-label, .account-list");
    say({ step: "booted", ...(await page.evaluate(() => ({
      lang: document.documentElement.lang,
      cross_origin_isolated: self.crossOriginIsolated,
      shared_array_buffer: typeof SharedArrayBuffer === "function",
      jspi: typeof WebAssembly.Suspending === "function",
      service_worker: "serviceWorker" in navigator,
    }))) });

    await createAccount(page, "Perso", config.passphrase);
    say({ step: "account" });
    await addProvider(page, config.provider);
    await page.click("[data-route=chat]");
    say({ step: "provider" });
    // The embedding model first, so the card the Mémoire step confirms is indexed by it (ml-worker, e5).
    say({ step: "e5 downloaded", ...(await downloadModel(page, "e5")) });

    await sendAndWait(page, config.message, config.message.slice(-40));
    const reply = await page.evaluate(() => {
      const all = document.querySelectorAll("[data-role=assistant]");
      return all[all.length - 1].querySelector(".markdown").innerText.trim();
    });
    const marks = await page.evaluate(() => {
      const users = document.querySelectorAll("[data-role=user]");
      return [...users[users.length - 1].querySelectorAll("mark.redacted")].map((m) => [m.innerText, m.dataset.kind]);
    });
    await page.evaluate(() => {
      const users = document.querySelectorAll("[data-role=user]");
      users[users.length - 1].querySelector("[data-action=wire]").click();
    });
    await page.waitForSelector("[data-role=user] .wire-text");
    const wire = await text(page, "[data-role=user] .wire-text");
    await page.screenshot({ path: `${config.shots}/firefox--chat.png` });
    say({ step: "chat", reply, marks, wire });

    // An explicit ask: the scripted model answers the extraction, a proposed card waits in the inbox.
    await sendAndWait(page, config.remember, config.remember.slice(-30));
    await page.waitForSelector("[data-testid=memory-badge]");
    await page.click("[data-route=memory]");
    await page.waitForSelector("[data-testid=memory-page]");
    await page.click("[data-action=open-inbox]");
    await page.waitForSelector("[data-testid=inbox] .inbox-item");
    const inbox = await text(page, "[data-testid=inbox] .inbox-item");
    await page.click("[data-testid=inbox] .inbox-item [data-action=inbox-confirm]");
    await page.waitForSelector("[data-testid=inbox] .mem-empty");
    await page.keyboard.press("Escape");
    await page.waitForSelector("dialog.sheet", { hidden: true });
    await page.click("[data-view=list]");
    await page.waitForSelector(".mem-row");
    const card = await text(page, ".mem-row");
    await page.waitForSelector("[data-testid=semantic-status]");
    const indexed = await text(page, "[data-testid=semantic-status]");
    await page.screenshot({ path: `${config.shots}/firefox--memoire.png` });
    say({ step: "memoire", inbox, card, indexed });

    // Persistence: Firefox's permission prompt is never answered here; the account was made all the
    // same, and Settings says the storage is not kept for sure.
    await page.click("[data-route=settings]");
    await page.waitForSelector("[data-testid=storage-persisted]");
    const storage = await page.$eval("[data-testid=storage-persisted]",
      (el) => ({ persisted: el.dataset.persisted, said: el.innerText.trim() }));
    say({ step: "storage", ...storage });
    await page.click("[data-route=chat]");
    say({ step: "offline model downloaded", ...(await downloadModel(page, "smollm2")) });

    // Offline: the site's server stopped, the browser told it is offline; reload, unlock, read.
    await ask("stop-site");
    let offlineMode = "server stopped";
    try {
      await page.setOfflineMode(true);
      offlineMode = "server stopped, browser offline";
    } catch (error) {
      offlineMode += ` (setOfflineMode: ${error.message})`;
    }
    await page.reload();
    await page.waitForSelector("#unlock-pass, .account-list");
    if (!(await page.$("#unlock-pass"))) await page.click("[data-account='Perso']");
    await page.type("#unlock-pass", config.passphrase);
    await page.click("form button[type=submit]");
    await page.waitForSelector("[data-role=assistant]:not([aria-busy]) .message-actions");
    const offline = await page.evaluate(() => ({
      on_line: navigator.onLine,
      cross_origin_isolated: self.crossOriginIsolated,
      conversations: document.querySelectorAll(".convlist-items .conv").length,
      replies: [...document.querySelectorAll("[data-role=assistant] .markdown")].map((el) => el.innerText.trim()),
    }));
    await page.screenshot({ path: `${config.shots}/firefox--offline.png` });
    say({ step: "offline", mode: offlineMode, ...offline });

    // Still offline: the offline model (wllama's default build: Firefox has JSPI and memory64) answers.
    await page.click("[data-action=new-conversation]");
    await page.waitForSelector('[data-testid=answering-model]:not([data-for=""])');
    await page.click("[data-action=pick-model]");
    await page.waitForSelector("#model-provider");
    await page.select("#model-provider", "local");
    await page.click("[data-action=use-model]");
    await page.waitForFunction(() => document.querySelector("[data-testid=answering-model] .model-name")
      ?.innerText.includes("SmolLM2"));
    await page.type("#composer-input", "What is the capital of France?");
    await page.waitForSelector("[data-action=send]:not([disabled])");
    await page.click("[data-action=send]");
    await page.waitForSelector("[data-role=assistant]:not([aria-busy]) .message-actions, [data-role=assistant] .inline-error",
      { timeout: 4 * TIMEOUT_MS });
    const local = await page.evaluate(() => {
      const replies = document.querySelectorAll("[data-role=assistant] .markdown");
      return { reply: replies[replies.length - 1]?.innerText.trim() || "",
        errors: [...document.querySelectorAll("[data-role=assistant] .inline-error")].map((el) => el.innerText) };
    });
    await page.screenshot({ path: `${config.shots}/firefox--offline-model.png` });
    say({ step: "offline model", ...local });
    say({ step: "errors", errors });
  } catch (error) {
    await page?.screenshot({ path: `${config.shots}/firefox--failure.png` }).catch(() => {});
    error.message += ` (console: ${JSON.stringify(errors)})`;
    throw error;
  } finally {
    await browser.close();
  }
}

run().then(() => process.exit(0), (error) => {
  say({ error: String(error?.stack || error) });
  process.exit(1);
});
