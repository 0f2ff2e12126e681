// A CouchDB-protocol server for OpenMasq's sync (issue 21, docs/sync.md): express-pouchdb over
// PouchDB's in-memory adapter, for the tests and for a person who wants one on their own machine.
// It is not a relay of ours: the protocol, the users, the per-database security are PouchDB's
// implementation of CouchDB's. Data lives in memory and is gone when the process stops (run Apache
// CouchDB for anything lasting).
//
//   node sync-server/server.mjs --port 5984 --admin admin:secret [--host 127.0.0.1]
//
// Prints one line `listening http://HOST:PORT` once it accepts connections.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const express = require("express");
const PouchDB = require("pouchdb-core")
  .plugin(require("pouchdb-adapter-memory"))
  .plugin(require("pouchdb-adapter-http"))
  .plugin(require("pouchdb-mapreduce"))
  .plugin(require("pouchdb-replication"));
const expressPouchDB = require("express-pouchdb");

function options(argv) {
  const out = { host: "127.0.0.1", port: 5984, admin: null, origins: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--host") out.host = value;
    else if (flag === "--port") out.port = Number.parseInt(value, 10);
    else if (flag === "--admin") out.admin = value;
    else if (flag === "--origin") out.origins.push(value);
    else throw new Error(`unknown option ${flag}`);
  }
  if (!out.admin || !out.admin.includes(":")) throw new Error("--admin NAME:PASSWORD is required (no admin party)");
  return out;
}

function cors(origins) {
  // The app runs on another origin than the server: CouchDB's [cors] section, for the origins given.
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin && origins.includes(origin)) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Access-Control-Allow-Credentials", "true");
      res.setHeader("Access-Control-Allow-Headers", "accept, authorization, content-type, origin, referer");
      res.setHeader("Access-Control-Allow-Methods", "GET, PUT, POST, HEAD, DELETE");
      res.setHeader("Access-Control-Expose-Headers", "content-type, cache-control, etag");
      res.setHeader("Vary", "Origin");
      if (req.method === "OPTIONS") return res.status(204).end();
    }
    return next();
  };
}

async function main() {
  const opts = options(process.argv.slice(2));
  const MemoryPouch = PouchDB.defaults({ adapter: "memory" });
  const couch = expressPouchDB(MemoryPouch, { mode: "fullCouchDB", inMemoryConfig: true, logPath: "/dev/null" });
  const [name, password] = [opts.admin.slice(0, opts.admin.indexOf(":")), opts.admin.slice(opts.admin.indexOf(":") + 1)];
  await new Promise((resolve, reject) => couch.couchConfig.set("admins", name, password, (e) => (e ? reject(e) : resolve())));
  await new Promise((resolve, reject) =>
    couch.couchConfig.set("couch_httpd_auth", "require_valid_user", true, (e) => (e ? reject(e) : resolve())));
  const app = express();
  app.use(cors(opts.origins));
  app.use("/", couch);
  const server = app.listen(opts.port, opts.host, () => {
    const { port } = server.address();
    console.log(`listening http://${opts.host}:${port}`);
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
}

main().catch((error) => {
  console.error(`sync-server: ${error.message}`);
  process.exit(2);
});
