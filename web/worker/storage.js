// Encrypted per-account storage for py-worker (docs/web.md, "The worker protocol").
//
// - A registry database `openmasq-accounts` lists the accounts: id, label, creation time, the PBKDF2
//   salt and iteration count, the data key wrapped by the passphrase key, and whether a device key
//   exists. Nothing in it is secret without the passphrase.
// - One database per account, `openmasq-acct-<id>`: store `records` (key -> AES-GCM iv||ciphertext
//   of a UTF-8 text) and store `keys` (the non-extractable device key and the data key it wraps,
//   when the user chose "remember on this device").
// - The data key is random (AES-GCM 256). Unwrapped, it is non-extractable and lives only in this
//   worker's memory until lock(). The record key is bound to each ciphertext as additional data,
//   so a ciphertext moved to another record (or another account) does not decrypt.
// Nothing is written to localStorage; nothing here logs.

import * as idb from "../vendor/idb-keyval.mjs";

/** An account's row in the registry (`openmasq-accounts`): nothing in it is secret without the passphrase.
 * @typedef {object} AccountEntry
 * @property {string} id
 * @property {string} label
 * @property {number} created milliseconds since the epoch
 * @property {Uint8Array<ArrayBuffer>} salt PBKDF2's
 * @property {number} iterations PBKDF2's
 * @property {Uint8Array<ArrayBuffer>} wrapped the data key wrapped by the passphrase key (iv || ciphertext)
 * @property {boolean} remembered whether the account's database holds a device key
 */
/** What the page sees of an account. @typedef {{id: string, label: string, created: number, remembered: boolean}} AccountSummary */
/** The unlocked account. @typedef {{id: string, label: string}} CurrentAccount */
/** The unlocked account as this module keeps it: its open database and its non-extractable data key.
 * @typedef {{id: string, label: string, db: IDBDatabase, key: CryptoKey}} OpenAccount */
/** The unlocked account's records (text values), as py-worker's Python side uses them.
 * @typedef {object} Records
 * @property {(key: string) => Promise<string | undefined>} get
 * @property {(key: string, text: string) => Promise<void>} put
 * @property {(key: string) => Promise<void>} delete
 * @property {() => Promise<string[]>} keys
 */
/** @typedef {import("../vendor/idb-keyval.mjs").UseStore} UseStore */

const REGISTRY_DB = "openmasq-accounts";
const ACCOUNT_DB_PREFIX = "openmasq-acct-";
// OWASP's 2023 figure for PBKDF2-HMAC-SHA256; 80-120 ms on the machines we measured (toolchain.md).
export const PBKDF2_ITERATIONS = 600_000;
const SALT_BYTES = 16;
const IV_BYTES = 12; // AES-GCM's standard nonce size; a fresh random one for every write
const DEVICE_KEY = "device-key";
const DEVICE_WRAPPED = "device-wrapped";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class WrongPassphrase extends Error {
  constructor() {
    super("Wrong passphrase: nothing was decrypted.");
    this.name = "WrongPassphrase";
  }
}

export class StorageError extends Error {
  /** @param {string} name NotFound, Locked, BadRequest, NotRemembered, Blocked @param {string} message */
  constructor(name, message) {
    super(message);
    this.name = name;
  }
}

// ---------------------------------------------------------------- IndexedDB

// The account database holds two stores, which idb-keyval's createStore (one store per database)
// cannot open: the database is opened here, and idb-keyval's reads and writes run on its stores.
/** @param {string} name @param {string[]} stores @returns {Promise<IDBDatabase>} */
function openDatabase(name, stores) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => {
      for (const store of stores) {
        if (!req.result.objectStoreNames.contains(store)) req.result.createObjectStore(store);
      }
    };
    req.onsuccess = () => {
      const db = req.result;
      // Another tab deleting this account's database: let it, this connection is done.
      db.onversionchange = () => db.close();
      resolve(db);
    };
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new StorageError("Blocked", `${name} is held open by an older version`));
  });
}

/** idb-keyval's store handle for `store` of the open database `db`.
 * @param {IDBDatabase} db @param {string} store @returns {UseStore} */
const storeOf = (db, store) => async (mode, work) => work(db.transaction(store, mode).objectStore(store));

/** @param {string} name @returns {Promise<void>} */
function deleteDatabase(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(name);
    req.onsuccess = () => resolve();
    req.onerror = () => reject(req.error);
    // Blocked: another connection is open; the deletion completes once it closes (onversionchange).
  });
}

// ---------------------------------------------------------------- crypto

/** @param {number} count */
const randomBytes = (count) => crypto.getRandomValues(new Uint8Array(count));

function randomId() {
  return Array.from(randomBytes(8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {string} passphrase @param {Uint8Array<ArrayBuffer>} salt @param {number} iterations @returns {Promise<CryptoKey>} */
async function passphraseKey(passphrase, salt, iterations) {
  const material = await crypto.subtle.importKey("raw", encoder.encode(passphrase), "PBKDF2", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["wrapKey", "unwrapKey"],
  );
}

/** `dataKey` wrapped (AES-GCM, `label` as additional data): iv || ciphertext.
 * @param {CryptoKey} dataKey @param {CryptoKey} wrappingKey @param {string} label @returns {Promise<Uint8Array<ArrayBuffer>>} */
async function wrap(dataKey, wrappingKey, label) {
  const iv = randomBytes(IV_BYTES);
  const sealed = await crypto.subtle.wrapKey("raw", dataKey, wrappingKey,
    { name: "AES-GCM", iv, additionalData: encoder.encode(label) });
  return joined(iv, new Uint8Array(sealed));
}

// The data key comes back non-extractable: once unwrapped it can encrypt and decrypt, never leave.
/** @param {Uint8Array<ArrayBuffer>} sealed @param {CryptoKey} wrappingKey @param {string} label @returns {Promise<CryptoKey>} */
async function unwrap(sealed, wrappingKey, label) {
  return crypto.subtle.unwrapKey("raw", sealed.subarray(IV_BYTES), wrappingKey,
    { name: "AES-GCM", iv: sealed.subarray(0, IV_BYTES), additionalData: encoder.encode(label) },
    { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

/** @param {Uint8Array<ArrayBuffer>} a @param {Uint8Array<ArrayBuffer>} b */
function joined(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

const recordLabel = (accountId, key) => `openmasq/${accountId}/record/${key}`;
const passphraseLabel = (accountId) => `openmasq/${accountId}/passphrase`;
const deviceLabel = (accountId) => `openmasq/${accountId}/device`;

// ---------------------------------------------------------------- the storage

export class Storage {
  constructor() {
    /** @type {IDBDatabase | null} */
    this.registry = null;
    /** @type {OpenAccount | null} while unlocked */
    this.account = null;
  }

  /** @returns {Promise<UseStore>} */
  async _accounts() {
    if (!this.registry) this.registry = await openDatabase(REGISTRY_DB, ["accounts"]);
    return storeOf(this.registry, "accounts");
  }

  /** @param {string} id @returns {Promise<AccountEntry>} */
  async _entry(id) {
    const entry = await idb.get(id, await this._accounts());
    if (!entry) throw new StorageError("NotFound", `no account ${id}`);
    return entry;
  }

  /** @returns {Promise<AccountSummary[]>} oldest first */
  async listAccounts() {
    /** @type {AccountEntry[]} */
    const entries = await idb.values(await this._accounts());
    return entries
      .map((e) => ({ id: e.id, label: e.label, created: e.created, remembered: Boolean(e.remembered) }))
      .sort((a, b) => a.created - b.created);
  }

  /** @returns {CurrentAccount | null} */
  current() {
    return this.account ? { id: this.account.id, label: this.account.label } : null;
  }

  /** A new account, unlocked.
   * @param {string} label @param {string} passphrase @param {boolean} [remember] @returns {Promise<AccountSummary>} */
  async createAccount(label, passphrase, remember = false) {
    if (typeof passphrase !== "string" || passphrase.length === 0) {
      throw new StorageError("BadRequest", "a passphrase is required");
    }
    this.lock();
    const id = randomId();
    const salt = randomBytes(SALT_BYTES);
    // Extractable only for the two wraps below; the copy kept in memory is re-imported non-extractable.
    const fresh = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]);
    const wrappingKey = await passphraseKey(passphrase, salt, PBKDF2_ITERATIONS);
    const wrapped = await wrap(fresh, wrappingKey, passphraseLabel(id));
    const entry = { id, label: String(label || "").trim() || "Compte", created: Date.now(), salt,
      iterations: PBKDF2_ITERATIONS, wrapped, remembered: false };
    const db = await openDatabase(ACCOUNT_DB_PREFIX + id, ["records", "keys"]);
    if (remember) {
      await this._rememberDevice(db, fresh, id);
      entry.remembered = true;
    }
    await idb.set(id, entry, await this._accounts());
    const key = await unwrap(wrapped, wrappingKey, passphraseLabel(id));
    this.account = { id, label: entry.label, db, key };
    return { id, label: entry.label, created: entry.created, remembered: entry.remembered };
  }

  /** Unlocks with the passphrase; `remember` adds (true) or removes (false) the device key.
   * @param {string} id @param {string} passphrase @param {boolean} [remember] @returns {Promise<CurrentAccount>} */
  async unlock(id, passphrase, remember = false) {
    this.lock();
    const entry = await this._entry(id);
    const wrappingKey = await passphraseKey(String(passphrase ?? ""), entry.salt, entry.iterations);
    let key;
    try {
      key = await unwrap(entry.wrapped, wrappingKey, passphraseLabel(id));
    } catch {
      throw new WrongPassphrase(); // the GCM tag did not verify: nothing was decrypted
    }
    const db = await openDatabase(ACCOUNT_DB_PREFIX + id, ["records", "keys"]);
    if (remember && !entry.remembered) {
      // Wrapping needs an extractable copy: unwrap once more, extractable, only for this.
      const copy = await crypto.subtle.unwrapKey("raw", entry.wrapped.subarray(IV_BYTES), wrappingKey,
        { name: "AES-GCM", iv: entry.wrapped.subarray(0, IV_BYTES), additionalData: encoder.encode(passphraseLabel(id)) },
        { name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]);
      await this._rememberDevice(db, copy, id);
    } else if (!remember && entry.remembered) {
      await idb.delMany([DEVICE_KEY, DEVICE_WRAPPED], storeOf(db, "keys"));
    }
    if (Boolean(remember) !== Boolean(entry.remembered)) {
      await idb.set(id, { ...entry, remembered: Boolean(remember) }, await this._accounts());
    }
    this.account = { id, label: entry.label, db, key };
    return this.current();
  }

  /** Unlocks with the device key kept by "remember on this device".
   * @param {string} id @returns {Promise<CurrentAccount>} */
  async unlockRemembered(id) {
    this.lock();
    const entry = await this._entry(id);
    const db = await openDatabase(ACCOUNT_DB_PREFIX + id, ["records", "keys"]);
    const [deviceKey, sealed] = await idb.getMany([DEVICE_KEY, DEVICE_WRAPPED], storeOf(db, "keys"));
    if (!entry.remembered || !deviceKey || !sealed) {
      db.close();
      throw new StorageError("NotRemembered", "this device does not remember the account: enter the passphrase");
    }
    const key = await unwrap(sealed, deviceKey, deviceLabel(id));
    this.account = { id, label: entry.label, db, key };
    return this.current();
  }

  /** @param {IDBDatabase} db @param {CryptoKey} dataKey an extractable copy @param {string} id */
  async _rememberDevice(db, dataKey, id) {
    // Non-extractable: IndexedDB keeps the key object, but nothing can ever read its bytes out.
    const deviceKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["wrapKey", "unwrapKey"]);
    const wrapped = await wrap(dataKey, deviceKey, deviceLabel(id));
    await idb.setMany([[DEVICE_KEY, deviceKey], [DEVICE_WRAPPED, wrapped]], storeOf(db, "keys")); // both or neither
  }

  /** Forgets the key: nothing can be decrypted until the next unlock. */
  lock() {
    if (this.account) {
      this.account.db.close();
      this.account = null;
    }
  }

  /** @param {string} id */
  async deleteAccount(id) {
    if (this.account?.id === id) this.lock();
    await this._entry(id);
    await idb.del(id, await this._accounts());
    await deleteDatabase(ACCOUNT_DB_PREFIX + id);
  }

  /** @param {string} id @param {string} label */
  async renameAccount(id, label) {
    const entry = await this._entry(id);
    await idb.set(id, { ...entry, label: String(label).trim() || entry.label }, await this._accounts());
    if (this.account?.id === id) this.account.label = String(label).trim() || entry.label;
  }

  /** @returns {OpenAccount} */
  _open() {
    if (!this.account) throw new StorageError("Locked", "no account is unlocked");
    return this.account;
  }

  /** The records of the unlocked account, as py-worker's Python side uses them (text values).
   * @returns {Records} */
  records() {
    const account = this._open();
    const still = () => {
      if (this.account !== account) throw new StorageError("Locked", "the account was locked");
      return account;
    };
    return {
      get: async (key) => {
        const { db, key: dataKey, id } = still();
        const sealed = await idb.get(key, storeOf(db, "records"));
        if (sealed === undefined) return undefined;
        const plain = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: sealed.subarray(0, IV_BYTES), additionalData: encoder.encode(recordLabel(id, key)) },
          dataKey, sealed.subarray(IV_BYTES));
        return decoder.decode(plain);
      },
      put: async (key, text) => {
        const { db, key: dataKey, id } = still();
        const iv = randomBytes(IV_BYTES);
        const sealed = await crypto.subtle.encrypt(
          { name: "AES-GCM", iv, additionalData: encoder.encode(recordLabel(id, key)) }, dataKey, encoder.encode(text));
        await idb.set(key, joined(iv, new Uint8Array(sealed)), storeOf(db, "records"));
      },
      delete: async (key) => {
        await idb.del(key, storeOf(still().db, "records"));
      },
      keys: async () => (await idb.keys(storeOf(still().db, "records"))).map(String),
    };
  }
}
