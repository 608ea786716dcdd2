// The transcript suite, through the JavaScript executor in Node: each transcript of
// tests/transcripts/*.json runs through the public API (RetryClient) in the world it scripts
// (tests/transcripts/world.mjs: a virtual clock, a scripted network, store and callbacks) and must
// give exactly the log and the records it lists — what the core's machines give natively
// (tests/transcripts.rs) and the Rust executor gives under wasm-pack (tests/transcripts_web.rs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { RetryClient, Budget, RetryError } from "../../js/node.js";
import { world } from "../transcripts/world.mjs";

const dir = new URL("../transcripts/", import.meta.url);
const transcripts = readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
  .flatMap((file) => JSON.parse(readFileSync(new URL(file, dir), "utf8")).map((t) => [file, t]));

/** The call of transcript `t` in world `w`, through the public API; its outcome as one line. */
async function call(t, w, records) {
  const policy = { ...t.client?.policy };
  if (w.shouldRetry !== undefined) policy.shouldRetry = w.shouldRetry;
  const client = new RetryClient({
    ...t.client,
    policy,
    store: w.store,
    budget: t.budget === undefined ? undefined : new Budget(t.budget),
    onAttempt: (record) => records.push(record),
  });
  const { url = "https://api.test/", method = "GET", body, options = {}, purpose, key } = t.call ?? {};
  const signal = w.abortSignal();
  try {
    if (purpose === "reconcile") {
      const r = await client.reconcile(key, w.query, { ...options, signal });
      return `reconciled resolved=${r.resolved} state=${r.state}`;
    }
    const res = await client.fetch(url, { method, body }, { ...options, signal });
    return `resolved ${res.status}`;
  } catch (error) {
    return `rejected ${error instanceof RetryError ? error.reason : error?.name}`;
  }
}

for (const [file, t] of transcripts) {
  if (t.stream !== undefined) continue;
  test(`${file}: ${t.name}`, async () => {
    const w = world(t);
    const records = [];
    w.install();
    let log;
    try {
      log = await w.run(() => call(t, w, records));
    } finally {
      w.uninstall();
    }
    assert.deepEqual({ log, records: JSON.parse(JSON.stringify(records)) }, t.expect);
  });
}
