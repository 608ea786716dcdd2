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
    onRetry: (info) => w.note(`retry #${info.attempt} after ${info.reason ?? "-"} wait ${info.plannedWaitMs}`),
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

/** The stream of transcript `t` in world `w`, through the public API: what the listeners hear is
 * logged; the caller's sends, gap and close come at their times. Resolves when it stops. */
function stream(t, w, records) {
  const client = new RetryClient({ ...t.client, onAttempt: (record) => records.push(record) });
  const { url, options = {}, onOpen, resync, heartbeat, sends = [], gapAt, closeAt = 60_000, events = [] } = t.stream;
  const given = { ...options, WebSocket: w.WebSocket };
  if (onOpen !== undefined) {
    given.onOpen = (ws) => {
      w.note(`onOpen #${ws.socket.n}`);
      if (onOpen.send !== undefined) ws.send(onOpen.send);
    };
  }
  if (resync !== undefined) given.resync = () => w.resync();
  if (heartbeat !== undefined) given.heartbeat = heartbeat;
  const s = client.stream(url, given);
  s.addEventListener("state", (e) => w.note(`state ${e.state}`));
  s.addEventListener("message", (e) => w.note(`message ${e.data}`));
  s.addEventListener("close", (e) => w.note(`closed ${e.code} ${e.reason}`));
  s.addEventListener("unsent", (e) => w.note(`unsent ${e.data}`));
  return new Promise((resolve) => {
    s.addEventListener("stop", (e) => resolve(`stopped ${e.reason}`));
    for (const { at, data } of sends) {
      setTimeout(() => {
        try {
          s.send(data);
        } catch {
          w.note("send refused");
        }
      }, at);
    }
    if (gapAt !== undefined) setTimeout(() => s.gap(), gapAt);
    for (const { at, do: what, code, reason } of events) {
      setTimeout(() => {
        w.note(what);
        if (what !== "reconnect") return w.page(what);
        try {
          s.reconnect(code, reason);
        } catch {
          w.note("reconnect refused");
        }
      }, at);
    }
    setTimeout(() => s.close(), closeAt);
  });
}

for (const [file, t] of transcripts) {
  test(`${file}: ${t.name}`, async () => {
    const w = world(t);
    const records = [];
    w.install();
    let log;
    try {
      log = await w.run(() => (t.stream === undefined ? call(t, w, records) : stream(t, w, records)));
    } finally {
      w.uninstall();
    }
    assert.deepEqual({ log, records: JSON.parse(JSON.stringify(records)) }, t.expect);
  });
}
