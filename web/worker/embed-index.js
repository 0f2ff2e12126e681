// The embedding index of memory cards and the py-worker's client of ml-worker (issue 7), imported by
// py-worker.js. Why here (JavaScript, in py-worker) and not in Python: Pyodide has no numpy, and 384 floats
// per card crossing into Python for every comparison would cost more than the comparisons; here the vectors
// are one Float32Array, the neighbours are dot products of normalised vectors, and the records are encrypted
// by the same storage as every other record (storage.js). Python (openmasq.worker.embeddings) only hands over
// the cards' texts and gets neighbours, search hits and NER spans back as JSON.
//
// Records: one per card, `embeddings:<card id>` -> {"h": sha256(model + text), "v": base64 of the float32
// vector}. A card whose text hash is unchanged is not embedded again; a card gone from the memory loses its
// record (no vector survives its card); a new model id re-embeds everything.

export const EMBED_PREFIX = "embeddings:";
export const MODEL_ID = "multilingual-e5-small/q4"; // part of every hash: another model means new vectors
export const DIM = 384;
export const BATCH = 16; // cards embedded per ml-worker call (issue 7)
export const NEIGHBOURS = 3; // memory/semantic.py NEIGHBOURS
const YIELD_EVERY_ROWS = 256; // a long neighbour pass lets the worker's other messages in between

const encoder = new TextEncoder();

// ---------------------------------------------------------------- the port client

export class MlClient {
  constructor() {
    this.port = null;
    this.nextId = 1;
    this.pending = new Map();
    this.progress = null; // last load progress, for diagnostics
  }

  attach(port) {
    for (const { reject } of this.pending.values()) reject(mlError("unavailable", "ml-worker restarted"));
    this.pending.clear();
    if (this.port) this.port.close();
    this.port = port || null;
    if (!this.port) return;
    this.port.onmessage = ({ data }) => {
      if (!data || data.id === undefined) return;
      if (data.type === "progress") {
        this.progress = data;
        return;
      }
      const entry = this.pending.get(data.id);
      if (!entry) return;
      this.pending.delete(data.id);
      if (data.type === "error") entry.reject(mlError(data.kind || "inference", data.message || "ml-worker failed"));
      else entry.resolve(data);
    };
  }

  get connected() {
    return Boolean(this.port);
  }

  request(message, transfer = []) {
    if (!this.port) return Promise.reject(mlError("unavailable", "no ml-worker connected"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ id, ...message }, transfer);
    });
  }

  async embed(texts, kind = "passage") {
    const answer = await this.request({ type: "embed", texts, kind });
    return { dim: answer.dim, count: answer.count, vectors: answer.vectors };
  }

  /** The NER network's scores for the arrays openmasq.ner.features made (Float32Array, windows x length x labels). */
  async tag(ids, flags, windows, length) {
    const answer = await this.request({ type: "tag", ids, flags, windows, length });
    return answer.scores;
  }
}

/** A fresh, aligned copy of bytes given by Pyodide (a Uint8Array or a PyProxy of bytes). */
function bytesOf(value) {
  const bytes = value instanceof Uint8Array ? value : value.toJs();
  return Uint8Array.from(bytes);
}

function mlError(kind, message) {
  /** @type {Error & {kind?: string}} */
  const error = new Error(message);
  error.name = "MlUnavailable";
  error.kind = kind;
  return error;
}

// ---------------------------------------------------------------- vectors as text

export function vectorToBase64(vector) {
  const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export function base64ToVector(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

export async function textHash(text) {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`${MODEL_ID}\n${text}`));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---------------------------------------------------------------- nearest neighbours

/** Dot product of rows i and j of a row-major matrix (normalised rows: the cosine). */
function rowDot(matrix, i, j, dim) {
  let sum = 0;
  const a = i * dim;
  const b = j * dim;
  for (let k = 0; k < dim; k++) sum += matrix[a + k] * matrix[b + k];
  return sum;
}

function dotWith(matrix, row, vector, dim) {
  let sum = 0;
  const a = row * dim;
  for (let k = 0; k < dim; k++) sum += matrix[a + k] * vector[k];
  return sum;
}

/** Inserts (id, sim) into a best-first list of at most k entries. */
function offer(list, id, sim, k) {
  if (list.length === k && sim <= list[k - 1][1]) return;
  let at = list.length;
  while (at > 0 && list[at - 1][1] < sim) at--;
  list.splice(at, 0, [id, sim]);
  if (list.length > k) list.pop();
}

/** The k rows nearest to `vector` among `count` rows (skipping row `skip`): [[row, cosine], ...]. */
export function nearestRows(matrix, count, dim, vector, k, skip = -1) {
  const best = [];
  for (let row = 0; row < count; row++) {
    if (row === skip) continue;
    offer(best, row, dotWith(matrix, row, vector, dim), k);
  }
  return best;
}

// ---------------------------------------------------------------- the index

export class EmbedIndex {
  /** records: storage.js's records() of the unlocked account; ml: an MlClient (or anything with embed()). */
  constructor(records, ml, { dim = DIM, batch = BATCH, k = NEIGHBOURS } = {}) {
    this.records = records;
    this.ml = ml;
    this.dim = dim;
    this.batch = batch;
    this.k = k;
    this.ids = []; // row -> card id
    this.rows = new Map(); // card id -> row
    this.hashes = new Map(); // card id -> text hash
    this.matrix = new Float32Array(0);
    this.top = new Map(); // card id -> [[card id, cosine], ...] best first
    this.loaded = false;
    this.stats = { embedded: 0, pruned: 0, kept: 0, ms: 0, calls: 0 };
  }

  get size() {
    return this.ids.length;
  }

  /** Reads every stored vector of the account (once). */
  async load() {
    if (this.loaded) return;
    const keys = (await this.records.keys()).filter((key) => key.startsWith(EMBED_PREFIX));
    const entries = [];
    for (const key of keys) {
      const text = await this.records.get(key);
      try {
        const doc = JSON.parse(text);
        const vector = base64ToVector(doc.v);
        if (vector.length === this.dim && typeof doc.h === "string") entries.push([key.slice(EMBED_PREFIX.length), doc.h, vector]);
      } catch {
        // An unreadable vector is embedded again at the next sync (its card's hash no longer matches).
      }
    }
    this._reset(entries);
    this.loaded = true;
  }

  _reset(entries) {
    this.ids = entries.map(([id]) => id);
    this.rows = new Map(this.ids.map((id, row) => [id, row]));
    this.hashes = new Map(entries.map(([id, hash]) => [id, hash]));
    this.matrix = new Float32Array(Math.max(1, entries.length) * this.dim);
    entries.forEach(([, , vector], row) => this.matrix.set(vector, row * this.dim));
    this.top = new Map();
    this._dirtyAll = true;
  }

  _grow(count) {
    if (this.matrix.length >= count * this.dim) return;
    const bigger = new Float32Array(Math.max(count, this.ids.length * 2, 16) * this.dim);
    bigger.set(this.matrix.subarray(0, this.ids.length * this.dim));
    this.matrix = bigger;
  }

  _put(id, hash, vector) {
    let row = this.rows.get(id);
    if (row === undefined) {
      row = this.ids.length;
      this._grow(row + 1);
      this.ids.push(id);
      this.rows.set(id, row);
    }
    this.matrix.set(vector, row * this.dim);
    this.hashes.set(id, hash);
  }

  _remove(id) {
    const row = this.rows.get(id);
    if (row === undefined) return;
    const last = this.ids.length - 1;
    if (row !== last) {
      const moved = this.ids[last];
      this.matrix.copyWithin(row * this.dim, last * this.dim, (last + 1) * this.dim);
      this.ids[row] = moved;
      this.rows.set(moved, row);
    }
    this.ids.pop();
    this.rows.delete(id);
    this.hashes.delete(id);
    this.top.delete(id);
  }

  /**
   * Brings the index in line with `cards` ([{id, text}]): new or changed texts are embedded in batches of
   * 16 and stored, vectors of cards no longer there are deleted, neighbours are updated where they changed.
   */
  async sync(cards) {
    const started = performance.now();
    await this.load();
    const wanted = new Map();
    for (const card of cards) wanted.set(String(card.id), await textHash(String(card.text)));
    const gone = this.ids.filter((id) => !wanted.has(id));
    const todo = cards.filter((card) => this.hashes.get(String(card.id)) !== wanted.get(String(card.id)));
    const changed = new Set(gone);
    for (const id of gone) {
      await this.records.delete(EMBED_PREFIX + id);
      this._remove(id);
    }
    // Stored vectors that no card owns any more (a card deleted while the index was not loaded).
    for (const key of await this.records.keys()) {
      if (key.startsWith(EMBED_PREFIX) && !wanted.has(key.slice(EMBED_PREFIX.length))) await this.records.delete(key);
    }
    for (let i = 0; i < todo.length; i += this.batch) {
      const chunk = todo.slice(i, i + this.batch);
      const { vectors, dim } = await this.ml.embed(chunk.map((card) => String(card.text)), "passage");
      this.stats.calls += 1;
      if (dim !== this.dim) throw new Error(`ml-worker answered ${dim}-d vectors, the index holds ${this.dim}-d`);
      for (let j = 0; j < chunk.length; j++) {
        const id = String(chunk[j].id);
        const vector = vectors.slice(j * dim, (j + 1) * dim);
        const hash = wanted.get(id);
        await this.records.put(EMBED_PREFIX + id, JSON.stringify({ h: hash, v: vectorToBase64(vector) }));
        this._put(id, hash, vector);
        changed.add(id);
      }
    }
    await this._updateNeighbours(changed);
    const result = { embedded: todo.length, pruned: gone.length, kept: cards.length - todo.length,
      size: this.ids.length, ms: Math.round(performance.now() - started) };
    this.stats = { ...this.stats, ...result };
    return result;
  }

  /** Forgets every vector (after an import replaced the memory, or a model change) and embeds all again. */
  async rebuild(cards) {
    await this.load();
    for (const key of await this.records.keys()) {
      if (key.startsWith(EMBED_PREFIX)) await this.records.delete(key);
    }
    this._reset([]);
    return this.sync(cards);
  }

  async _updateNeighbours(changed) {
    const full = this._dirtyAll;
    this._dirtyAll = false;
    const changedRows = [...changed].map((id) => this.rows.get(id)).filter((row) => row !== undefined);
    let done = 0;
    for (let row = 0; row < this.ids.length; row++) {
      const id = this.ids[row];
      const current = this.top.get(id);
      const stale = full || !current || changed.has(id) || current.some(([other]) => changed.has(other))
        || current.length < Math.min(this.k, this.ids.length - 1);
      if (stale) {
        this.top.set(id, this._row(row));
        done += 1;
      } else {
        for (const other of changedRows) {
          if (other !== row) offer(current, this.ids[other], rowDot(this.matrix, row, other, this.dim), this.k);
        }
      }
      if (done && done % YIELD_EVERY_ROWS === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  _row(row) {
    const vector = this.matrix.subarray(row * this.dim, (row + 1) * this.dim);
    return nearestRows(this.matrix, this.ids.length, this.dim, vector, this.k, row)
      .map(([other, sim]) => [this.ids[other], sim]);
  }

  /** {card id: [[card id, cosine] x 3]}, a copy (the index updates its own lists in place). */
  neighbours() {
    return Object.fromEntries([...this.top].map(([id, near]) => [id, near.map(([other, sim]) => [other, sim])]));
  }

  /** The k cards nearest to a `query: ` embedding of `query`. */
  async search(query, k) {
    await this.load();
    if (!this.ids.length) return [];
    const { vectors } = await this.ml.embed([String(query)], "query");
    return nearestRows(this.matrix, this.ids.length, this.dim, vectors, k).map(([row, sim]) => [this.ids[row], sim]);
  }
}

// ---------------------------------------------------------------- what Python imports as `openmasq_ml`

/**
 * The module py-worker registers in Pyodide (pyodide.registerJsModule("openmasq_ml", ...)); every answer is
 * JSON text. `records()` gives the unlocked account's records (throws when locked); one index per account.
 */
export function pythonModule(ml, records, currentAccount) {
  let index = null;
  let indexAccount = null;
  const indexFor = () => {
    const account = currentAccount();
    if (!account) throw mlError("locked", "no account is unlocked");
    if (!index || indexAccount !== account.id) {
      index = new EmbedIndex(records(), ml);
      indexAccount = account.id;
    }
    return index;
  };
  return {
    connected: () => ml.connected,
    // ids and flags arrive as the bytes of Python int32 / int8 arrays; the scores go back as a Float32Array.
    tag: async (idsBytes, flagsBytes, windows, length) => {
      const ids = new Int32Array(bytesOf(idsBytes).buffer);
      const flags = new Int8Array(bytesOf(flagsBytes).buffer);
      return ml.tag(ids, flags, Number(windows), Number(length));
    },
    indexSync: async (cardsJson, rebuild = false) => {
      const target = indexFor();
      const cards = JSON.parse(cardsJson);
      const result = rebuild ? await target.rebuild(cards) : await target.sync(cards);
      return JSON.stringify({ ...result, neighbours: target.neighbours() });
    },
    indexSearch: async (query, k) => JSON.stringify(await indexFor().search(String(query), Number(k))),
    forget: () => {
      index = null;
      indexAccount = null;
    },
  };
}
