// Runs the installed npm package in workerd (Cloudflare's runtime), with no bundler: the shared
// part of workerd.test.mjs and workerd-orders.test.mjs. Each test writes its own capnp config
// (services, bindings, storage differ); this module renders the config's module list from the
// installed package, and starts, calls and stops the workerd process.
//
//   const config = (dir) => `... modules = ${capnpModules(dir, join(here, "fixtures", "x", "worker.js"))}, ...`;
//   const { dir, mock, worker, close } = await startPackageInWorkerd(config); // in before()
//   await worker.call("/health");       // POST (or GET) JSON, with a timeout
//   await worker.restart();             // a new process on the same directory: new isolate, new port
//   await close();                      // in after(): workerd, the mock exchange, the project
//
// startWorkerd({ dir, config }) alone serves a config in an existing directory.
//
// Module names: workerd resolves every specifier — bare ones too — relative to the importing
// module's name, and has no package resolution. Each package file is therefore named by its path
// inside the package ("js/retry-error.js", "pkg/retryline.js", "pkg/retryline_bg.wasm"), the
// worker is named "<entry dir>/worker.js", and the entry file is registered under the name
// "<entry dir>/retryline", which is where the worker's `import ... from "retryline"` lands. The
// entry's own relative imports ("./retry-error.js", "../pkg/retryline_bg.wasm") then resolve to
// the shipped files. (A root-level module named "retryline" cannot work: "../pkg/..." would climb
// above the root, which workerd rejects with "Invalid module specifier".)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync, mkdirSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { installFresh, removeDir, repoRoot } from "./pack.mjs";
import { capnpLines, workerdModules } from "../../../js/cli/workerd-modules.mjs";
import { startMockExchange } from "../mock-exchange.mjs";

const WORKERD = join(repoRoot, "node_modules", ".bin", "workerd");
const STARTUP_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 20_000;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The worker's modules, from the installed package.

// The walk is the package's own (js/cli/workerd-modules.mjs, `npx retryline workerd-modules`),
// applied to the installed package: the lines users paste into their configs are what these tests run.
export { workerdModules };

/**
 * Copies `workerFile` (a fixture) to <dir>/src/worker.js and renders the capnp value of a
 * Workerd.Worker's `modules`: the worker, then the package's workerd modules embedded verbatim
 * from <dir>/node_modules/retryline, named as explained at the top of this file. `roots`, if
 * given, are the package files whose module graphs the worker gets instead of the workerd entry's.
 */
export function capnpModules(dir, workerFile, roots) {
  const walk = workerdModules(join(dir, "node_modules", "retryline"), roots);
  mkdirSync(join(dir, "src"), { recursive: true });
  copyFileSync(workerFile, join(dir, "src", "worker.js"));
  const lines = [`(name = ${JSON.stringify(`${walk.entryDir}worker.js`)}, esModule = embed "src/worker.js"),`, ...capnpLines(walk)];
  return `[\n    ${lines.join("\n    ")}\n  ]`;
}

// ---------------------------------------------------------------------------------------------
// The workerd process.

const running = new Set(); // child processes not yet seen to exit

// If the test process dies some other way, don't leave workerd behind.
process.once("exit", () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/**
 * Writes `config` (capnp text) to <dir>/config.capnp and serves it with workerd from `dir`; the
 * config's socket "http" must listen on 127.0.0.1:0. Resolves once workerd reports (--control-fd)
 * that the socket listens, with
 *   base      http://127.0.0.1:<port> of the worker (a getter: it changes on restart)
 *   log()     everything workerd printed so far, across restarts
 *   call(path, body?)  GET (no body) or POST JSON to the worker, with a timeout; asserts a 200 and
 *             returns the parsed answer
 *   stop()    SIGTERM, then SIGKILL after 3 s
 *   restart() stop(), then a new process on the same directory (new isolate, new wasm instance)
 */
export async function startWorkerd({ dir, config, startupTimeoutMs = STARTUP_TIMEOUT_MS, requestTimeoutMs = REQUEST_TIMEOUT_MS }) {
  writeFileSync(join(dir, "config.capnp"), config);
  let child; // the current process
  let output = "";
  let port;

  // Each start is a new process; resolves with the port its "http" socket listens on.
  const spawnWorkerd = () => new Promise((resolve, reject) => {
    child = spawn(WORKERD, ["serve", "config.capnp", "--verbose", "--control-fd=3"], {
      cwd: dir, env: { ...process.env, PWD: dir }, stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    const self = child;
    running.add(self);
    self.once("exit", () => running.delete(self));
    output += `--- workerd started (pid ${self.pid})\n`;
    const timer = setTimeout(() => fail(new Error(`workerd did not listen within ${startupTimeoutMs} ms`)), startupTimeoutMs);
    let settled = false;
    function fail(err) {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      if (self.exitCode === null && self.signalCode === null) self.kill("SIGKILL"); // no handle reaches the caller
      err.message += `\n--- workerd output\n${output}`;
      reject(err);
    }
    self.stdout.on("data", (d) => (output += d));
    self.stderr.on("data", (d) => (output += d));
    self.once("error", fail);
    self.once("exit", (code, signal) => fail(new Error(`workerd exited early (code ${code}, signal ${signal})`)));
    let control = "";
    self.stdio[3].on("data", (d) => {
      control += d;
      for (const line of control.split("\n").slice(0, -1)) {
        const event = JSON.parse(line);
        if (event.event === "listen" && event.socket === "http" && !settled) {
          settled = true;
          clearTimeout(timer);
          resolve(event.port);
        }
      }
    });
  });

  async function stop() {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((r) => current.once("exit", r));
    current.kill("SIGTERM");
    const timer = setTimeout(() => current.kill("SIGKILL"), 3_000);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 6_000))]);
    clearTimeout(timer);
  }

  const worker = {
    get base() { return `http://127.0.0.1:${port}`; },
    log: () => output,
    async call(path, body) {
      const res = await fetch(worker.base + path, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      const text = await res.text();
      assert.equal(res.status, 200, `worker ${path} answered ${res.status}: ${text}\n--- workerd output\n${output}`);
      return JSON.parse(text);
    },
    stop,
    async restart() {
      await stop();
      port = await spawnWorkerd();
    },
  };
  port = await spawnWorkerd();
  return worker;
}

// ---------------------------------------------------------------------------------------------
// The whole rig of a test file.

/**
 * A mock exchange, a fresh project with the npm tarball installed (pack.mjs: packs it, and builds
 * pkg/ first when it is stale), and workerd serving `await config(dir)`. Resolves with
 * { dir, mock, worker, close() }; close() stops workerd and the mock, and removes the project.
 * If a step fails, what was started is closed before the error is thrown.
 */
export async function startPackageInWorkerd(config) {
  const rig = {
    dir: undefined, mock: undefined, worker: undefined,
    async close() {
      await rig.worker?.stop();
      await rig.mock?.close();
      await removeDir(rig.dir);
    },
  };
  try {
    rig.mock = await startMockExchange({ port: 0 });
    rig.dir = await installFresh();
    rig.worker = await startWorkerd({ dir: rig.dir, config: await config(rig.dir) });
  } catch (err) {
    await rig.close();
    throw err;
  }
  return rig;
}
