// Multi-device sync's replication (issue 21, docs/sync.md): the app's records, sealed by
// sync-envelope.js, in a local PouchDB database that replicates with a CouchDB-protocol server.
//
// One round (syncOnce): connect (the server answers, takes the credentials, holds this key's check),
// push (each record that changed since the last round becomes a new sealed revision over the one
// this device last saw), replicate both ways (PouchDB's CouchDB replication), resolve (every
// document with conflicting leaves: the merge of the winning and each losing leaf over their common
// ancestor, by the caller's `merge`, the Python core's rules; written as a child of the winner, the
// loser closed), then report the records whose body differs from the app's: the caller applies them.
// A document that does not open (Tampered) is reported by id and never applied.
//
// The local database holds only envelopes: nothing in it is readable without the sync key.

import {
  KEY_CHECK_ID,
  Tampered,
  WrongSyncKey,
  docIdOf,
  keyCheckDoc,
  nextRevision,
  open,
  seal,
  verifyKeyCheck,
} from "./sync-envelope.js";

export class Unreachable extends Error {
  constructor(url, detail) {
    super(`The sync server ${url} cannot be reached${detail ? ` (${detail})` : ""}. Changes are kept here and sent at the next sync.`);
    this.name = "Unreachable";
  }
}

export class BadCredentials extends Error {
  constructor(url) {
    super(`The sync server ${url} refused this user name and password.`);
    this.name = "BadCredentials";
  }
}

/** A JSON text whatever the key order, to tell whether two bodies are the same. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

function revOf(generation, hash) {
  return `${generation}-${hash}`;
}

/** The revisions of a document fetched with {revs: true}, newest first. */
function lineage(doc) {
  const { start, ids } = doc._revisions || { start: Number(doc._rev.split("-")[0]), ids: [doc._rev.split("-")[1]] };
  return ids.map((hash, i) => revOf(start - i, hash));
}

export class SyncEngine {
  /**
   * PouchDB: the PouchDB constructor; local: the local database's name; remote: the server database's URL;
   * credentials: {username, password}; keys: syncKeys(raw); merge(name, base, ours, theirs) -> merged body.
   */
  constructor({ PouchDB, local, remote, credentials, keys, merge }) {
    this.PouchDB = PouchDB;
    this.localName = local;
    this.remoteUrl = remote;
    this.keys = keys;
    this.merge = merge;
    this.local = new PouchDB(local);
    this.remote = new PouchDB(remote, { auth: credentials, skip_setup: true });
    this.status = { state: "idle", lastSync: null, pending: 0, conflictsResolved: 0, refused: [], error: null };
    // What the local database's winning revisions hold (name -> canonical body) as of its sequence
    // `seenSeq`: a round opens only the documents that changed since, and seals only the records that
    // differ from it (measured: an edit round over 1,200 records, bench/sync.py).
    this.seen = null;
    this.seenSeq = 0;
  }

  // ------------------------------------------------------------ connect

  async connect() {
    let info;
    try {
      info = await this.remote.info();
    } catch (error) {
      throw this.explain(error);
    }
    if (info?.error) throw this.explain(info);
    let check = null;
    try {
      check = await this.remote.get(KEY_CHECK_ID);
    } catch (error) {
      if (error.status !== 404) throw this.explain(error);
    }
    if (!(await verifyKeyCheck(this.keys, check))) await this.remote.put(await keyCheckDoc(this.keys));
  }

  explain(error) {
    if (error instanceof WrongSyncKey) return error;
    // PouchDB rejects with a status, or (info() of a database it may not open) resolves with {error}.
    if (error?.status === 401 || error?.status === 403 || ["unauthorized", "forbidden"].includes(error?.error)) {
      return new BadCredentials(this.remoteUrl);
    }
    return new Unreachable(this.remoteUrl, error?.message || error?.reason || "");
  }

  // ------------------------------------------------------------ push

  /** This device's current leaf of record `name`, opened: {doc, body} or null. */
  async current(id) {
    let doc;
    try {
      doc = await this.local.get(id, { revs: true, conflicts: true });
    } catch (error) {
      if (error.status === 404) return null;
      throw error;
    }
    return { doc, opened: await open(this.keys, doc) };
  }

  /** Records (name -> body; a record the app no longer has: absent) into local revisions; returns
      how many changed. */
  async push(records, known) {
    const docs = [];
    const names = new Set([...Object.keys(records), ...known]);
    for (const name of names) {
      const body = Object.prototype.hasOwnProperty.call(records, name) ? records[name] : null;
      if (this.seen && (this.seen.get(name) ?? "null") === canonical(body)) continue;
      const sealedId = await docIdOf(this.keys, name);
      let mine;
      try {
        mine = await this.current(sealedId);
      } catch (error) {
        if (!(error instanceof Tampered)) throw error;
        this.refuse(error);
        continue; // never overwrite what we cannot read: it is reported
      }
      if (mine && canonical(mine.opened.body) === canonical(body)) continue;
      if (!mine && body === null) continue;
      docs.push(await seal(this.keys, name, body, mine?.doc));
    }
    if (docs.length) await this.local.bulkDocs(docs, { new_edits: false });
    this.status.pending += docs.length;
    return docs.length;
  }

  refuse(error) {
    if (!this.status.refused.some((r) => r.id === error.docId)) {
      this.status.refused.push({ id: error.docId, message: error.message });
    }
  }

  // ------------------------------------------------------------ replicate

  /** The server's revisions into the local database, nothing sent. */
  async pull() {
    try {
      await this.local.replicate.from(this.remote);
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** Both ways: this device's revisions (its edits, its resolutions) out, any newer ones in. */
  async replicate() {
    try {
      await this.local.sync(this.remote);
    } catch (error) {
      throw this.explain(error);
    }
    this.status.pending = 0;
  }

  // ------------------------------------------------------------ resolve

  async bodyAt(id, rev) {
    try {
      return (await open(this.keys, await this.local.get(id, { rev }))).body;
    } catch (error) {
      if (error instanceof Tampered) throw error;
      return null; // an ancestor whose body was compacted away: no base, the merge keeps both sides' data
    }
  }

  /** Every document with conflicting leaves: merged into the winner, the losers closed. */
  async resolve() {
    const rows = (await this.local.allDocs({ include_docs: true, conflicts: true })).rows;
    let resolved = 0;
    for (const { doc } of rows) {
      if (!doc || doc._id === KEY_CHECK_ID || !doc._conflicts?.length) continue;
      try {
        resolved += await this.resolveOne(doc._id);
      } catch (error) {
        if (!(error instanceof Tampered)) throw error;
        this.refuse(error);
      }
    }
    this.status.conflictsResolved += resolved;
    return resolved;
  }

  async resolveOne(id) {
    const winner = await this.local.get(id, { revs: true, conflicts: true });
    const mine = await open(this.keys, winner);
    let body = mine.body;
    const writes = [];
    for (const rev of [...winner._conflicts].sort()) {
      const loser = await this.local.get(id, { rev, revs: true });
      const theirs = await open(this.keys, loser);
      const ancestors = new Set(lineage(winner));
      const common = lineage(loser).find((r) => ancestors.has(r));
      const base = common ? await this.bodyAt(id, common) : null;
      body = await this.merge(mine.name, base, body, theirs.body);
      const closing = nextRevision(loser._rev);
      writes.push({ _id: id, _rev: closing, _deleted: true,
                    _revisions: { start: Number(closing.split("-")[0]), ids: [closing.split("-")[1], ...loser._revisions.ids] } });
    }
    if (canonical(body) !== canonical(mine.body)) writes.push(await seal(this.keys, mine.name, body, winner));
    await this.local.bulkDocs(writes, { new_edits: false });
    return winner._conflicts.length;
  }

  // ------------------------------------------------------------ read back

  /** Every record this device's database holds, opened: name -> body (null: deleted). */
  async records() {
    const out = {};
    const rows = (await this.local.allDocs({ include_docs: true })).rows;
    for (const { doc } of rows) {
      if (!doc || doc._id === KEY_CHECK_ID) continue;
      try {
        const opened = await open(this.keys, doc);
        out[opened.name] = opened.body;
      } catch (error) {
        if (!(error instanceof Tampered)) throw error;
        this.refuse(error);
      }
    }
    return out;
  }

  /** Every record of the local database opened once, as `seen` (the first round of this engine). */
  async scan() {
    this.seenSeq = (await this.local.info()).update_seq;
    this.seen = new Map(Object.entries(await this.records()).map(([name, body]) => [name, canonical(body)]));
  }

  /** The documents changed since `seenSeq` opened into `seen`; returns every record's body. */
  async catchUp() {
    const feed = await this.local.changes({ since: this.seenSeq, include_docs: true });
    for (const { doc } of feed.results) {
      if (!doc || doc._id === KEY_CHECK_ID || doc._deleted) continue;
      try {
        const opened = await open(this.keys, doc);
        this.seen.set(opened.name, canonical(opened.body));
      } catch (error) {
        if (!(error instanceof Tampered)) throw error;
        this.refuse(error);
      }
    }
    this.seenSeq = feed.last_seq;
    return Object.fromEntries([...this.seen].map(([name, text]) => [name, JSON.parse(text)]));
  }

  /** One round: the records the app holds in, the records to apply out ({name: body|null}). */
  async syncOnce(records) {
    this.status.state = "syncing";
    this.status.error = null;
    try {
      // Sealed locally first: while the server is out of reach the changes wait here (status.pending).
      if (!this.seen) await this.scan();
      await this.push(records, [...this.seen.keys()]);
      await this.connect();
      // Pulled first, and resolved here before anything is sent: a pull that ran beside this device's
      // own push could miss the other side of a conflict (the server's changes feed, read while our
      // write moves the document to a new sequence, lists it at neither), leaving it to the next round.
      await this.pull();
      await this.resolve();
      await this.replicate();
      const held = await this.catchUp();
      const changed = {};
      for (const [name, body] of Object.entries(held)) {
        const mine = Object.prototype.hasOwnProperty.call(records, name) ? records[name] : null;
        if (canonical(mine) !== canonical(body)) changed[name] = body;
      }
      this.status.state = "ok";
      this.status.lastSync = Date.now();
      return { changed, status: { ...this.status, refused: [...this.status.refused] } };
    } catch (error) {
      this.status.state = "error";
      this.status.error = { name: error.name, message: error.message };
      throw error;
    }
  }

  async close() {
    await this.local.close();
    await this.remote.close();
  }
}
