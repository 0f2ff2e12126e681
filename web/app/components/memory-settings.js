// Settings → Mémoire: the automatic-memory switch (off by default), how proposed cards are injected,
// and the exports: the plain-text diagnostic, the JSON export (optionally passphrase-encrypted in
// this page with WebCrypto) and its import.
import { html, useState } from "../lib.js";
import { t } from "../i18n.js";
import { useApp } from "../app.js";
import { errorMessage, FilePicker } from "./ui.js";
import { InjectionChoice } from "./memory-inbox.js";
import { decryptText, download, encryptText, isEncrypted, memoryChanged, useMemoryApi } from "./memory-api.js";

const MIN_FILE_PASSPHRASE = 8;

export function MemorySettingsPanel() {
  const { api, settings, updateSettings, toast } = useApp();
  const mem = useMemoryApi(api);
  const [encrypt, setEncrypt] = useState(false);
  const [passphrase, setPassphrase] = useState("");
  const [pending, setPending] = useState(null); // an encrypted file waiting for its passphrase
  const [importPass, setImportPass] = useState("");
  const [error, setError] = useState("");

  const setAuto = async (value) => {
    try {
      await updateSettings({ auto_extract: value });
      await mem.markMemoryProposalSeen();
      toast(t("settings.saved"));
    } catch (err) { setError(errorMessage(err)); }
  };
  const exportText = async () => {
    try { const file = await mem.exportMemoryText(); download(file.name, file.text); toast(t("memory.exported")); } catch (err) {
      setError(errorMessage(err));
    }
  };
  const exportJson = async () => {
    setError("");
    if (encrypt && passphrase.length < MIN_FILE_PASSPHRASE) {
      setError(t("accounts.tooShort", { n: MIN_FILE_PASSPHRASE }));
      return;
    }
    try {
      const file = await mem.exportMemoryJson();
      const text = encrypt ? await encryptText(file.text, passphrase) : file.text;
      download(encrypt ? file.name.replace(/\.json$/, ".enc.json") : file.name, text, "application/json");
      toast(t("memory.exported"));
    } catch (err) { setError(errorMessage(err)); }
  };
  const importText = async (text) => {
    const report = await mem.importMemoryJson(text);
    memoryChanged();
    toast(t("memory.importDone", report));
  };
  const onFile = async (e) => {
    setError("");
    const file = e.currentTarget.files?.[0];
    e.currentTarget.value = "";
    if (!file) return;
    try {
      const text = await file.text();
      if (isEncrypted(text)) { setPending(text); return; }
      await importText(text);
    } catch (err) { setError(t("memory.importFailed", { error: errorMessage(err) })); }
  };
  const openEncrypted = async (e) => {
    e.preventDefault();
    try {
      await importText(await decryptText(pending, importPass));
      setPending(null);
      setImportPass("");
    } catch (err) {
      setError(err?.name === "WrongPassphrase" ? t("memory.wrongFilePassphrase")
        : t("memory.importFailed", { error: errorMessage(err) }));
    }
  };

  return html`<section class="panel" aria-labelledby="set-memory" data-testid="memory-settings">
    <h2 id="set-memory">${t("memory.settings")}</h2>
    <div class="check">
      <input type="checkbox" id="set-auto-extract" role="switch" checked=${Boolean(settings.auto_extract)}
        onChange=${(e) => setAuto(e.currentTarget.checked)} aria-describedby="set-auto-extract-help" />
      <label for="set-auto-extract">${t("memory.autoExtract")}</label>
      <p class="help" id="set-auto-extract-help">${t("memory.autoExtractHelp")}</p>
    </div>
    <${InjectionChoice} idPrefix="settings" />
    <div class="field">
      <h3 class="mem-subhead">${t("memory.exports")}</h3>
      <p class="help">${t("memory.exportWarning")}</p>
      <div class="row">
        <button type="button" class="button" onClick=${exportText} data-action="export-text">${t("memory.exportText")}</button>
        <button type="button" class="button" onClick=${exportJson} data-action="export-json">${t("memory.exportJson")}</button>
      </div>
      <div class="check">
        <input type="checkbox" id="export-encrypt" checked=${encrypt} onChange=${(e) => setEncrypt(e.currentTarget.checked)} />
        <label for="export-encrypt">${t("memory.exportEncrypted")}</label>
      </div>
      ${encrypt ? html`<div class="field">
        <label for="export-pass">${t("memory.exportPassphrase")}</label>
        <input id="export-pass" type="password" autocomplete="new-password" value=${passphrase}
          onInput=${(e) => setPassphrase(e.currentTarget.value)} />
      </div>` : null}
      <${FilePicker} id="import-file" label=${t("memory.import")} accept=".json,application/json" onChange=${onFile} />
      ${pending ? html`<form class="row" onSubmit=${openEncrypted}>
        <label for="import-pass">${t("memory.importPassphrase")}</label>
        <input id="import-pass" type="password" autocomplete="off" value=${importPass}
          onInput=${(e) => setImportPass(e.currentTarget.value)} />
        <button type="submit" class="button primary" data-action="import-decrypt">${t("common.confirm")}</button>
      </form>` : null}
      ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    </div>
  </section>`;
}
