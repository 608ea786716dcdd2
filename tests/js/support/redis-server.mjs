// A real redis-server (Debian's, installed by scripts/bootstrap.mjs) for the fleet tests and bench:
// its own loopback port and data directory, no persistence, stopped (and its directory removed) after.
//   const redis = await startRedis();   // { url, port, kill(), restart(), command(...args), close() }
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const freePort = () => new Promise((resolve, reject) => {
  const server = createServer().once("error", reject).listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});

/** Runs redis-cli against `port`; its output (trimmed). */
export function redisCli(port, ...args) {
  const r = spawnSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], { encoding: "utf8", timeout: 10_000 });
  return (r.stdout ?? "").trim();
}

async function waitUntil(ok, what) {
  const until = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`redis-server: ${what} in 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), "retryline-redis-"));
  const port = await freePort();
  let child = null;
  const start = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no",
      "--enable-debug-command", "local", "--loglevel", "warning"], { stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", () => {});
    await waitUntil(() => redisCli(port, "PING") === "PONG", "no PONG");
  };
  const stop = async (signal) => {
    if (child === null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
    child = null;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    command: (...args) => redisCli(port, ...args),
    /** Kills it outright (SIGKILL): what a crash looks like to its clients. */
    kill: () => stop("SIGKILL"),
    /** Starts it again on the same port, empty. */
    restart: start,
    async close() {
      await stop("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
