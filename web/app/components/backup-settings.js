// Settings → Conversations (issue 18, item 7): export every conversation of the account as JSON (for a
// re-import; optionally passphrase-encrypted in the Mémoire export's file format) or as Markdown (for
// reading), and import a JSON backup: what is already here is skipped and said, nothing is overwritten.
// The file also brings the personas, the account's system prompt and prices (filled where empty, never
// replaced: the report says what came in). The decisions are py/openmasq/chat/backup.py's and restore.py's,
// reached through py-worker's `backup` door.
import { html, useState } from "../lib.js";
import { t } from "../i18n.js";
import { useApp } from "../app.js";
import { errorMessage, FilePicker } from "./ui.js";
import { decryptText, download, encryptText, isEncrypted } from "./memory-api.js";
import { emit } from "../store.js";

const MIN_FILE_PASSPHRASE = 8;

// A file of a newer build is said in the interface's language (py-worker's reason, in English, names the versions).
const importError = (err) => (err?.name === "NewerBackup" ? t("backup.newer")
  : t("backup.importFailed", { error: errorMessage(err) }));

/** What an import did besides the conversations (personas, the account's prompt and prices), one line each. */
function ImportedParts({ report }) {
  const personas = report.personas || {};
  const account = report.account;
  const lines = [
    personas.added ? t("backup.personasAdded", { n: personas.added }) : null,
    personas.same ? t("backup.personasSame", { n: personas.same }) : null,
    personas.unmatched ? t("backup.personasUnmatched", { n: personas.unmatched }) : null,
    account && account.system_prompt !== "none" ? t(`backup.prompt.${account.system_prompt}`) : null,
    account?.prices_added ? t("backup.pricesAdded", { n: account.prices_added }) : null,
    account?.prices_kept ? t("backup.pricesKept", { n: account.prices_kept }) : null,
    account?.prices_unmatched ? t("backup.pricesUnmatched", { n: account.prices_unmatched }) : null,
    report.providers_missing?.length ? t("backup.providersMissing", { names: report.providers_missing.join(", ") }) : null,
  ].filter(Boolean);
  return lines.length ? html`<ul class="small" data-testid="backup-parts">${lines.map((line) => html`<li>${line}</li>`)}</ul>` : null;
}

export function BackupSettingsPanel() {
  const { api, toast, reloadProviders } = useApp();
  const [encrypt, setEncrypt] = useState(false);
  const [passphrase, setPassphrase] = useState("");
  const [pending, setPending] = useState(null); // an encrypted file waiting for its passphrase
  const [importPass, setImportPass] = useState("");
  const [error, setError] = useState("");
  const [report, setReport] = useState(null);

  const exportAs = async (fmt) => {
    setError("");
    if (fmt === "json" && encrypt && passphrase.length < MIN_FILE_PASSPHRASE) {
      setError(t("accounts.tooShort", { n: MIN_FILE_PASSPHRASE }));
      return;
    }
    try {
      const labels = { user: t("chat.you"), assistant: t("chat.assistant") };
      const file = await api.backup("exportConversations", [null, fmt, labels, t("backup.untitled")]);
      const locked = fmt === "json" && encrypt;
      const text = locked ? await encryptText(file.text, passphrase) : file.text;
      download(locked ? file.name.replace(/\.json$/, ".enc.json") : file.name, text,
        fmt === "json" ? "application/json" : "text/markdown");
      toast(t("backup.exported", { n: file.count }));
    } catch (err) { setError(errorMessage(err)); }
  };
  const importText = async (text) => {
    const done = await api.backup("importConversations", [text]);
    setReport(done);
    // What came in besides the conversations is shown at once: personas, prices, the account's prompt.
    if (done.personas?.added) emit("personas-changed");
    if (done.account?.prices_added) emit("prices-changed");
    if (done.account?.system_prompt === "set") await reloadProviders();
    toast(t("backup.imported", { n: done.added.length }));
  };
  const onFile = async (e) => {
    setError("");
    setReport(null);
    const file = e.currentTarget.files?.[0];
    e.currentTarget.value = "";
    if (!file) return;
    try {
      const text = await file.text();
      if (isEncrypted(text)) { setPending(text); return; }
      await importText(text);
    } catch (err) { setError(importError(err)); }
  };
  const openEncrypted = async (e) => {
    e.preventDefault();
    try {
      await importText(await decryptText(pending, importPass));
      setPending(null);
      setImportPass("");
    } catch (err) {
      setError(err?.name === "WrongPassphrase" ? t("memory.wrongFilePassphrase") : importError(err));
    }
  };

  return html`<section class="panel" aria-labelledby="set-backup" data-testid="backup-settings">
    <h2 id="set-backup">${t("backup.title")}</h2>
    <p class="help">${t("backup.warning")}</p>
    <div class="row">
      <button type="button" class="button" onClick=${() => exportAs("json")} data-action="backup-json">${t("backup.exportJson")}</button>
      <button type="button" class="button" onClick=${() => exportAs("md")} data-action="backup-md">${t("backup.exportMarkdown")}</button>
    </div>
    <div class="check">
      <input type="checkbox" id="backup-encrypt" checked=${encrypt} onChange=${(e) => setEncrypt(e.currentTarget.checked)} />
      <label for="backup-encrypt">${t("memory.exportEncrypted")}</label>
    </div>
    ${encrypt ? html`<div class="field">
      <label for="backup-pass">${t("memory.exportPassphrase")}</label>
      <input id="backup-pass" type="password" autocomplete="new-password" value=${passphrase}
        onInput=${(e) => setPassphrase(e.currentTarget.value)} />
    </div>` : null}
    <${FilePicker} id="backup-file" label=${t("backup.import")} accept=".json,application/json" onChange=${onFile} />
    ${pending ? html`<form class="row" onSubmit=${openEncrypted}>
      <label for="backup-import-pass">${t("memory.importPassphrase")}</label>
      <input id="backup-import-pass" type="password" autocomplete="off" value=${importPass}
        onInput=${(e) => setImportPass(e.currentTarget.value)} />
      <button type="submit" class="button primary" data-action="backup-decrypt">${t("common.confirm")}</button>
    </form>` : null}
    ${report ? html`<div data-testid="backup-report" role="status">
      <p>${t("backup.imported", { n: report.added.length })}</p>
      ${report.skipped.length ? html`<p>${t("backup.skipped", { n: report.skipped.length })}</p>
        <ul class="small">${report.skipped.map((s) => html`<li key=${s.id}>${s.title || t("backup.untitled")}
          (${t(`backup.why.${s.why}`)})</li>`)}</ul>` : null}
      <${ImportedParts} report=${report} />
    </div>` : null}
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
  </section>`;
}
