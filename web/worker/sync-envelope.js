// The encrypted envelope of multi-device sync (issue 21, docs/sync.md): what a sync record becomes
// before it reaches the CouchDB-protocol server, and the checks that turn it back.
//
// - The sync key is 32 random bytes that never leave the user's devices (paired by a code, below).
//   HKDF-SHA256 derives from it three keys: an AES-GCM 256 key for bodies, an HMAC-SHA256 key for
//   document ids, and an HMAC-SHA256 key for the key check.
// - A record named `card:<id>` is stored as the document `r<hex>`, the first 16 bytes of
//   HMAC(idKey, name): the server cannot tell a card from a conversation, nor link it to its id.
// - The body is AES-GCM(JSON {name, body}) with a fresh 12-byte nonce, padded to a size bucket
//   (powers of two from 1 KiB, then whole MiB), the document id and revision bound as additional
//   data: a ciphertext moved to another document or presented as another revision does not
//   decrypt (Tampered), and is reported, never applied.
// - The revision is chosen here (`<generation>-<random hex>`) before encrypting and written with
//   new_edits: false, so it is known when the additional data is made.
// - A key-check document (fixed id) holds HMAC(checkKey, label): a device with another key sees it
//   does not match and refuses to write (WrongSyncKey) before touching anything.
// Pure apart from WebCrypto and its random nonces: runs in a worker, a page, or node.

export const ENVELOPE_VERSION = 1;
export const KEY_BYTES = 32;
export const KEY_CHECK_ID = "openmasq-sync-key";
const NONCE_BYTES = 12;
const ID_BYTES = 16;
const REV_BYTES = 16;
const MIN_BUCKET = 1024;
const MIB = 1024 * 1024;
const LENGTH_BYTES = 4; // the plaintext's length, before its padding
const INFO = "openmasq-sync-v1";
const CHECK_LABEL = "openmasq-sync-v1 key check";
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ0123456789"; // Crockford-like base32: no I, L, O, U
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Tampered extends Error {
  constructor(id, why) {
    super(`Sync document ${id} was refused: ${why}. Nothing of it was applied.`);
    this.name = "Tampered";
    this.docId = id;
  }
}

export class WrongSyncKey extends Error {
  constructor() {
    super("This sync key is not the one this server's data was written with: nothing was sent or applied.");
    this.name = "WrongSyncKey";
  }
}

export class BadSyncCode extends Error {
  constructor(why) {
    super(`Not a sync code: ${why}.`);
    this.name = "BadSyncCode";
  }
}

// ---------------------------------------------------------------- bytes

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

function unbase64(text) {
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) out[i] = raw.charCodeAt(i);
  return out;
}

export function randomBytes(n) {
  return crypto.getRandomValues(new Uint8Array(n));
}

// ---------------------------------------------------------------- sizes

/** The padded size of a plaintext of `n` bytes: powers of two from 1 KiB up to 1 MiB, then whole MiB. */
export function bucketSize(n) {
  const needed = n + LENGTH_BYTES;
  if (needed > MIB) return Math.ceil(needed / MIB) * MIB;
  let size = MIN_BUCKET;
  while (size < needed) size *= 2;
  return size;
}

function pad(plain) {
  const out = new Uint8Array(bucketSize(plain.length));
  new DataView(out.buffer).setUint32(0, plain.length);
  out.set(plain, LENGTH_BYTES);
  return out;
}

function unpad(padded, id) {
  if (padded.length < LENGTH_BYTES) throw new Tampered(id, "too short");
  const length = new DataView(padded.buffer, padded.byteOffset).getUint32(0);
  if (length > padded.length - LENGTH_BYTES) throw new Tampered(id, "bad padding");
  return padded.subarray(LENGTH_BYTES, LENGTH_BYTES + length);
}

// ---------------------------------------------------------------- keys

/** A fresh sync key (raw bytes): made once, on the first device. */
export function newSyncKey() {
  return randomBytes(KEY_BYTES);
}

/** The sync key as a code a person can type on another device: 52 base32 characters in groups of 4. */
export function keyToCode(raw) {
  if (raw.length !== KEY_BYTES) throw new BadSyncCode("a sync key is 32 bytes");
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of raw) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CODE_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += CODE_ALPHABET[(value << (5 - bits)) & 31];
  return out.match(/.{1,4}/g).join("-");
}

/** A typed code back to the key; spaces, dashes and case do not matter, O/I/L read as 0/1/1. */
export function codeToKey(code) {
  const clean = String(code).toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (clean.length !== Math.ceil((KEY_BYTES * 8) / 5)) throw new BadSyncCode(`expected 52 characters, got ${clean.length}`);
  const out = new Uint8Array(KEY_BYTES);
  let bits = 0;
  let value = 0;
  let index = 0;
  for (const ch of clean) {
    const digit = CODE_ALPHABET.indexOf(ch);
    if (digit < 0) throw new BadSyncCode(`'${ch}' is not a code character`);
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      if (index < KEY_BYTES) out[index] = (value >>> (bits - 8)) & 0xff;
      index += 1;
      bits -= 8;
    }
  }
  return out;
}

/** The three working keys of a raw sync key (non-extractable). */
export async function syncKeys(raw) {
  const master = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const derive = (label, algorithm, usages) => crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`${INFO} ${label}`) },
    master, algorithm, false, usages);
  const hmac = { name: "HMAC", hash: "SHA-256", length: 256 };
  return {
    body: await derive("body", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]),
    id: await derive("id", hmac, ["sign"]),
    check: await derive("check", hmac, ["sign"]),
  };
}

async function hmac(key, text) {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
}

/** The server's id of a record: a keyed hash of its name. */
export async function docIdOf(keys, name) {
  return `r${hex((await hmac(keys.id, name)).subarray(0, ID_BYTES))}`;
}

/** The key-check document this key writes (its value reveals nothing of the key). */
export async function keyCheckDoc(keys) {
  return { _id: KEY_CHECK_ID, v: ENVELOPE_VERSION, check: base64(await hmac(keys.check, CHECK_LABEL)) };
}

/** Throws WrongSyncKey when the server's key check was written with another key; a missing
    check (an empty database) passes: the caller writes it. */
export async function verifyKeyCheck(keys, doc) {
  if (!doc) return false;
  const mine = await keyCheckDoc(keys);
  if (doc.check !== mine.check) throw new WrongSyncKey();
  return true;
}

// ---------------------------------------------------------------- envelopes

function additionalData(id, rev) {
  return encoder.encode(`${INFO}\n${id}\n${rev}`);
}

/** The next revision of a document whose current revision is `parentRev` (undefined: a new one). */
export function nextRevision(parentRev) {
  const generation = parentRev ? Number.parseInt(String(parentRev).split("-")[0], 10) + 1 : 1;
  return `${generation}-${hex(randomBytes(REV_BYTES))}`;
}

/** The CouchDB document for record `name` (its body `body`, JSON; null: deleted) written over
    `parent` ({_rev, _revisions} of the current revision, or undefined), ready for
    bulkDocs(..., {new_edits: false}). */
export async function seal(keys, name, body, parent) {
  const id = await docIdOf(keys, name);
  const rev = nextRevision(parent?._rev);
  const [generation, hash] = rev.split("-");
  const ancestors = parent?._revisions?.ids || (parent?._rev ? [parent._rev.split("-")[1]] : []);
  const nonce = randomBytes(NONCE_BYTES);
  const plain = pad(encoder.encode(JSON.stringify({ name, body })));
  const sealed = new Uint8Array(await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: nonce, additionalData: additionalData(id, rev) }, keys.body, plain));
  const box = new Uint8Array(NONCE_BYTES + sealed.length);
  box.set(nonce);
  box.set(sealed, NONCE_BYTES);
  return {
    _id: id, _rev: rev, _revisions: { start: Number(generation), ids: [hash, ...ancestors] },
    v: ENVELOPE_VERSION, c: base64(box),
  };
}

/** A document from the server back to {name, body, id, rev}; Tampered when anything about it
    does not hold (another key, another document's or revision's ciphertext, altered bytes). */
export async function open(keys, doc) {
  const id = doc?._id;
  if (doc?.v !== ENVELOPE_VERSION || typeof doc.c !== "string") throw new Tampered(id, "not an envelope of this version");
  let box;
  try {
    box = unbase64(doc.c);
  } catch {
    throw new Tampered(id, "not base64");
  }
  if (box.length <= NONCE_BYTES) throw new Tampered(id, "too short");
  let padded;
  try {
    padded = new Uint8Array(await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: box.subarray(0, NONCE_BYTES), additionalData: additionalData(id, doc._rev) },
      keys.body, box.subarray(NONCE_BYTES)));
  } catch {
    throw new Tampered(id, "its ciphertext does not authenticate for this document and revision");
  }
  let record;
  try {
    record = JSON.parse(decoder.decode(unpad(padded, id)));
  } catch (error) {
    if (error instanceof Tampered) throw error;
    throw new Tampered(id, "its content is not JSON");
  }
  if (typeof record?.name !== "string" || (await docIdOf(keys, record.name)) !== id) {
    throw new Tampered(id, "its record name does not belong to this document");
  }
  return { name: record.name, body: record.body ?? null, id, rev: doc._rev };
}
