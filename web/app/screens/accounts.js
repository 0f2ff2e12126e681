// The account gate: pick, create, unlock (or open a remembered account), rename and delete accounts.
import { html, useState, useRef, useEffect } from "../lib.js";
import { t, formatDate, LANGS, lang } from "../i18n.js";
import { Icon } from "../components/icons.js";
import { Confirm, Field, describedBy, useBusy, errorMessage, useToast } from "../components/ui.js";
import { MIN_PASSPHRASE, strengthLevel } from "../passphrase.js";
import { requestPersistence } from "../offline.js";

// What a password manager records as the "username" of a passphrase: a constant, never the account's label
// (Chromium's password manager otherwise takes the text field before the password, the label, and keeps it
// in clear in its own database; e2e/test_profile_no_plaintext.py).
const PASSWORD_MANAGER_USERNAME = "OpenMasq";

export function AccountsScreen({ api, accounts, setAccounts, notice, onEnter, changeLang }) {
  const [view, setView] = useState(/** @type {{name: string, account?: object}} */ (accounts.length ? { name: "list" } : { name: "create" }));
  const [deleting, setDeleting] = useState(null);
  const [renaming, setRenaming] = useState(null);
  const toast = useToast();

  const refresh = async () => {
    const list = await api.listAccounts();
    setAccounts(list);
    return list;
  };

  const remove = async () => {
    await api.deleteAccount(deleting.id);
    setDeleting(null);
    toast(t("accounts.deleted"));
    const list = await refresh();
    if (!list.length) setView({ name: "create" });
  };

  const rename = async (label) => {
    await api.renameAccount(renaming.id, label);
    setRenaming(null);
    toast(t("accounts.renamed"));
    await refresh();
  };

  return html`<div class="center-screen accounts">
    <div class="gate-card">
      <header class="gate-head">
        <div class="brand"><${Icon} name="shield" size=${32} /><h1>${t("app.name")}</h1></div>
        <label class="lang-pick">
          <span class="visually-hidden">${t("settings.language")}</span>
          <select value=${lang()} onChange=${(e) => changeLang(e.currentTarget.value)}>
            ${Object.entries(LANGS).map(([code, name]) => html`<option value=${code}>${name}</option>`)}
          </select>
        </label>
      </header>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      ${view.name === "list" ? html`<${AccountList} api=${api} accounts=${accounts} onEnter=${onEnter}
          onUnlock=${(a) => setView({ name: "unlock", account: a })} onCreate=${() => setView({ name: "create" })}
          onDelete=${setDeleting} onRename=${setRenaming} />` : null}
      ${view.name === "create" ? html`<${CreateAccount} api=${api} onEnter=${onEnter}
          onCancel=${accounts.length ? () => setView({ name: "list" }) : null} />` : null}
      ${view.name === "unlock" ? html`<${UnlockAccount} api=${api} account=${view.account} onEnter=${onEnter}
          onCancel=${() => setView({ name: "list" })} />` : null}
    </div>
    ${deleting ? html`<${DeleteAccount} account=${deleting} onConfirm=${remove} onCancel=${() => setDeleting(null)} />` : null}
    ${renaming ? html`<${RenameAccount} account=${renaming} onConfirm=${rename} onCancel=${() => setRenaming(null)} />` : null}
  </div>`;
}

function AccountList({ api, accounts, onEnter, onUnlock, onCreate, onDelete, onRename }) {
  const [run, busy] = useBusy();
  const [error, setError] = useState("");
  const open = (account) => run(async () => {
    setError("");
    if (!account.remembered) return onUnlock(account);
    try {
      await api.unlockRemembered(account.id);
      await onEnter();
    } catch (err) {
      // The device key may have been cleared with the site data: fall back to the passphrase.
      console.warn(err);
      onUnlock(account);
    }
  });
  return html`<section aria-labelledby="accounts-title">
    <h2 id="accounts-title">${t("accounts.title")}</h2>
    <p class="muted">${t("accounts.intro")}</p>
    <ul class="account-list">
      ${accounts.map((a) => html`<li key=${a.id} class="account-row">
        <button type="button" class="account-open" onClick=${() => open(a)} disabled=${busy}
          data-account=${a.label}>
          <span class="avatar" aria-hidden="true">${(a.label || "?").slice(0, 1).toUpperCase()}</span>
          <span class="account-text">
            <strong>${a.label}</strong>
            <span class="muted small">${t("accounts.created", { date: formatDate(a.created) })}${a.remembered
              ? html` · <span class="badge">${t("accounts.remembered")}</span>` : null}</span>
          </span>
          <${Icon} name=${a.remembered ? "chevron" : "lock"} />
        </button>
        <button type="button" class="icon-button" onClick=${() => onRename(a)}
          aria-label=${`${t("accounts.rename")} — ${a.label}`}><${Icon} name="pencil" /></button>
        <button type="button" class="icon-button" onClick=${() => onDelete(a)}
          aria-label=${`${t("accounts.delete")} — ${a.label}`}><${Icon} name="trash" /></button>
      </li>`)}
    </ul>
    ${error ? html`<p class="field-error" role="alert">${error}</p>` : null}
    <button type="button" class="button primary wide" onClick=${onCreate}>
      <${Icon} name="plus" />${t("accounts.create")}
    </button>
  </section>`;
}

function StrengthMeter({ value }) {
  if (!value) return null;
  const level = strengthLevel(value);
  return html`<div class="strength" data-level=${level}>
    <meter min="0" max="4" low="2" high="3" optimum="4" value=${level} aria-hidden="true"></meter>
    <span class="small">${t("accounts.strength", { level: t(`accounts.strength.${level}`) })}</span>
  </div>`;
}

function CreateAccount({ api, onEnter, onCancel }) {
  const [label, setLabel] = useState("");
  const [pass, setPass] = useState("");
  const [confirm, setConfirm] = useState("");
  const [remember, setRemember] = useState(false);
  const [errors, setErrors] = useState(/** @type {Record<string, string>} */ ({}));
  const [run, busy] = useBusy();
  const first = useRef(null);
  useEffect(() => first.current?.focus(), []);

  const submit = (e) => {
    e.preventDefault();
    /** @type {Record<string, string>} */
    const found = {};
    if (!label.trim()) found.label = t("accounts.labelRequired");
    if (pass.length < MIN_PASSPHRASE) found.pass = t("accounts.tooShort", { n: MIN_PASSPHRASE });
    else if (pass !== confirm) found.confirm = t("accounts.mismatch");
    setErrors(found);
    const invalid = Object.keys(found);
    if (invalid.length) {
      document.getElementById({ label: "acct-label", pass: "acct-pass", confirm: "acct-confirm" }[invalid[0]])?.focus();
      return;
    }
    run(async () => {
      try {
        await api.createAccount(label.trim(), pass, remember);
        // The new account must not be evicted under storage pressure (issue 19). Asked, never awaited:
        // Firefox answers only once the user acts on its permission prompt (measured: still pending
        // after 10 s with nobody there), and creating the account must not wait on it; Settings says
        // whether the storage is kept.
        requestPersistence();
        await api.updateSettings({ lang: lang() });  // the account speaks the language it was made in
        await onEnter();
      } catch (err) {
        setErrors({ form: errorMessage(err) });
      }
    });
  };

  return html`<form class="stack" onSubmit=${submit} aria-labelledby="create-title" novalidate>
    <h2 id="create-title">${t("accounts.createTitle")}</h2>
    <p class="muted">${t("accounts.intro")}</p>
    <p class="muted small" data-testid="persist-note">${t("storage.persistNote")}</p>
    <${Field} id="acct-label" label=${t("accounts.label")} error=${errors.label}>
      <input id="acct-label" ref=${first} value=${label} onInput=${(e) => setLabel(e.currentTarget.value)}
        placeholder=${t("accounts.labelPlaceholder")} autocomplete="off" maxlength="60"
        aria-invalid=${errors.label ? "true" : undefined} aria-describedby=${describedBy("acct-label", "", errors.label)} />
    <//>
    <input type="text" class="visually-hidden" autocomplete="username" value=${PASSWORD_MANAGER_USERNAME} readonly
      tabindex="-1" aria-hidden="true" />
    <${Field} id="acct-pass" label=${t("accounts.passphrase")} help=${t("accounts.passphraseHelp")} error=${errors.pass}>
      <input id="acct-pass" type="password" value=${pass} onInput=${(e) => setPass(e.currentTarget.value)}
        autocomplete="new-password" aria-invalid=${errors.pass ? "true" : undefined}
        aria-describedby=${describedBy("acct-pass", true, errors.pass)} />
      <${StrengthMeter} value=${pass} />
    <//>
    <${Field} id="acct-confirm" label=${t("accounts.passphraseConfirm")} error=${errors.confirm}>
      <input id="acct-confirm" type="password" value=${confirm} onInput=${(e) => setConfirm(e.currentTarget.value)}
        autocomplete="new-password" aria-invalid=${errors.confirm ? "true" : undefined}
        aria-describedby=${describedBy("acct-confirm", "", errors.confirm)} />
    <//>
    <${RememberBox} checked=${remember} onChange=${setRemember} id="acct-remember" />
    ${errors.form ? html`<p class="field-error" role="alert">${errors.form}</p>` : null}
    <div class="row end">
      ${onCancel ? html`<button type="button" class="button" onClick=${onCancel}>${t("common.cancel")}</button>` : null}
      <button type="submit" class="button primary" disabled=${busy}>
        ${busy ? t("accounts.creating") : t("accounts.create")}
      </button>
    </div>
  </form>`;
}

function RememberBox({ checked, onChange, id }) {
  return html`<div class="check">
    <input type="checkbox" id=${id} checked=${checked} onChange=${(e) => onChange(e.currentTarget.checked)}
      aria-describedby=${`${id}-help`} />
    <label for=${id}>${t("accounts.remember")}</label>
    <p class="help" id=${`${id}-help`}>${t("accounts.rememberHelp")}</p>
  </div>`;
}

function UnlockAccount({ api, account, onEnter, onCancel }) {
  const [pass, setPass] = useState("");
  const [remember, setRemember] = useState(Boolean(account.remembered));
  const [error, setError] = useState("");
  const [run, busy] = useBusy();
  const input = useRef(null);
  useEffect(() => input.current?.focus(), []);

  const submit = (e) => {
    e.preventDefault();
    if (!pass) return;
    run(async () => {
      setError("");
      try {
        await api.unlock(account.id, pass, remember);
      } catch (err) {
        const wrong = err?.name === "WrongPassphrase" || /WrongPassphrase/.test(String(err?.message || err));
        setError(wrong ? t("accounts.wrongPassphrase") : errorMessage(err));
        setPass("");
        input.current?.focus();
        return;
      }
      await onEnter();
    });
  };

  return html`<form class="stack" onSubmit=${submit} aria-labelledby="unlock-title">
    <h2 id="unlock-title">${t("accounts.unlockTitle", { label: account.label })}</h2>
    <input type="text" class="visually-hidden" autocomplete="username" value=${PASSWORD_MANAGER_USERNAME} readonly
      tabindex="-1" aria-hidden="true" />
    <${Field} id="unlock-pass" label=${t("accounts.passphrase")} error=${error}>
      <input id="unlock-pass" ref=${input} type="password" value=${pass} autocomplete="current-password"
        onInput=${(e) => setPass(e.currentTarget.value)} aria-invalid=${error ? "true" : undefined}
        aria-describedby=${describedBy("unlock-pass", "", error)} />
    <//>
    <${RememberBox} checked=${remember} onChange=${setRemember} id="unlock-remember" />
    <div class="row end">
      <button type="button" class="button" onClick=${onCancel}>${t("common.back")}</button>
      <button type="submit" class="button primary" disabled=${busy || !pass}>
        ${busy ? t("accounts.unlocking") : t("accounts.unlock")}
      </button>
    </div>
  </form>`;
}

function DeleteAccount({ account, onConfirm, onCancel }) {
  const [typed, setTyped] = useState("");
  return html`<${Confirm} title=${t("accounts.deleteTitle", { label: account.label })} body=${t("accounts.deleteBody")}
      confirmLabel=${t("accounts.delete")} danger onConfirm=${onConfirm} onCancel=${onCancel}
      canConfirm=${typed.trim() === account.label.trim()}>
    <${Field} id="delete-type" label=${t("accounts.deleteType", { label: account.label })}>
      <input id="delete-type" value=${typed} onInput=${(e) => setTyped(e.currentTarget.value)} autocomplete="off" />
    <//>
  <//>`;
}

function RenameAccount({ account, onConfirm, onCancel }) {
  const [label, setLabel] = useState(account.label);
  const clean = label.trim();
  return html`<${Confirm} title=${t("accounts.renameTitle", { label: account.label })}
      confirmLabel=${t("accounts.rename")} onConfirm=${() => onConfirm(clean)} onCancel=${onCancel}
      canConfirm=${Boolean(clean) && clean !== account.label.trim()}>
    <${Field} id="rename-label" label=${t("accounts.label")} error=${clean ? "" : t("accounts.labelRequired")}>
      <input id="rename-label" value=${label} onInput=${(e) => setLabel(e.currentTarget.value)}
        autocomplete="off" maxlength="60" aria-describedby=${describedBy("rename-label", "", clean ? "" : "x")} />
    <//>
  <//>`;
}
