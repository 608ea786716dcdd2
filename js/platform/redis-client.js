// The `redis` option of a Budget (Node): a redis:// URL, or a client the caller made — ioredis, or
// node-redis 4 and later. All a fleet needs of it is one command at a time; a client made here from a
// URL fails fast while Redis is down (no offline queue), so that no stale step runs on reconnect.

import { kind } from "./describe.js";

/** A client the caller passed: its one-command function, or null if it is neither kind. */
function given(client) {
  if (typeof client?.call === "function") return (args) => client.call(...args); // ioredis
  if (typeof client?.sendCommand === "function") return (args) => client.sendCommand(args.map(String)); // node-redis
  return null;
}

// An optional peer: named through a variable and marked ignored, so that a bundler (webpack, Turbopack,
// esbuild, Vite) neither fails where it is not installed nor bundles it; Node resolves it at run time.
const peer = (name) => import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ name);

/** Resolves once `client` (either kind) is first ready or first fails to connect. */
const settled = (client) =>
  new Promise((resolve) => {
    client.once("ready", resolve);
    client.once("error", resolve);
  });

/** A client of our own from `url`: ioredis where it is installed, else node-redis. */
async function own(url) {
  try {
    const { default: Redis } = await peer("ioredis");
    const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 200 });
    client.on("error", () => {}); // an unreachable Redis is `sharing: "unreachable"`, not a crash
    // Without an offline queue a command fails until the first connection is ready: the first waits for
    // it, or for the first error (a refused connection fails the visit at once, not at the join bound).
    const ready = settled(client);
    return { command: async (args) => (await ready, client.call(...args)), close: () => client.disconnect() };
  } catch (error) {
    if (error?.code !== "ERR_MODULE_NOT_FOUND" && error?.code !== "MODULE_NOT_FOUND") throw error;
  }
  const { createClient } = await peer("redis").catch(() => {
    throw new TypeError("Budget: redis needs a Redis client from npm: npm install ioredis (or redis)");
  });
  const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 200 } });
  client.on("error", () => {});
  const ready = settled(client);
  client.connect().catch(() => {});
  return { command: async (args) => (await ready, client.sendCommand(args.map(String))), close: () => client.destroy() };
}

/** `{ command(args) → Promise, close() }` for the option's value. @throws {TypeError} naming it. */
export function redisClient(value) {
  if (typeof value === "string") {
    let url;
    try {
      url = new URL(value);
    } catch {}
    if (url?.protocol !== "redis:" && url?.protocol !== "rediss:") {
      throw new TypeError(`Budget: redis must be a redis:// or rediss:// URL, got ${JSON.stringify(value.slice(0, 60))}`);
    }
    const made = own(value);
    made.catch(() => {});
    return { command: async (args) => (await made).command(args), close: async () => (await made).close() };
  }
  const command = given(value);
  if (command === null) {
    throw new TypeError(`Budget: redis must be a redis:// URL, an ioredis client or a node-redis client (4 or later), got ${kind(value)}`);
  }
  return { command, close: () => {} };
}
