// The sync worker (issue 21, docs/sync.md): PouchDB and sync-engine.js in a module worker of their own,
// an egress script like net-worker (csp.EGRESS_SCRIPTS): its connect-src is widened to the configured
// origins, which the page sets to include the sync server's before it starts this worker.
// The page hands it the records (py-worker's syncRecords) and a merge callback (py-worker's syncMerge);
// it hands back the records to apply (py-worker's syncApply) and the status.
import * as Comlink from "../vendor/comlink.mjs";
import "../vendor/pouchdb.min.js";
import { codeToKey, docIdOf, keyToCode, newSyncKey, syncKeys } from "./sync-envelope.js";
import { SyncEngine } from "./sync-engine.js";

let engine = null;
let engineFor = "";

async function engineOf(config, merge) {
  const wanted = JSON.stringify([config.account, config.url, config.user, config.password, config.code]);
  if (engine && engineFor === wanted) {
    engine.merge = merge;
    return engine;
  }
  if (engine) await engine.close();
  const keys = await syncKeys(codeToKey(config.code));
  // One local database per account and key: envelopes sealed under another key never mix with these.
  const tag = (await docIdOf(keys, "local database")).slice(1, 13);
  engine = new SyncEngine({
    PouchDB: self.PouchDB, local: `openmasq-sync-${config.account}-${tag}`, remote: config.url,
    credentials: { username: config.user, password: config.password }, keys, merge,
  });
  engineFor = wanted;
  return engine;
}


const api = {
  newCode: () => keyToCode(newSyncKey()),
  checkCode(code) {
    codeToKey(code);
    return true;
  },
  async syncOnce(config, records, merge) {
    const running = await engineOf(config, (name, base, ours, theirs) => merge(name, base, ours, theirs));
    return running.syncOnce(records);
  },
  status: () => (engine ? { ...engine.status } : null),
};

Comlink.expose(api);
