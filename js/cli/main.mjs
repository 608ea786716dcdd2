// `npx retryline worksheet <module>` and `npx retryline verify <module>`: the module's default
// export is the options of a RetryClient (or a client). worksheet prints what the configuration
// decides, family by family; verify runs the controlled failure cases for each family and exits
// non-zero on any failure, with a line naming the family, the case, what was expected and what
// happened. `npx retryline workerd-modules` prints the module lines of a plain workerd config.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { RetryClient, replay } from "../node.js";
import { startLoopback } from "./loopback.mjs";
import { layers, longWait, lostOrder, restart, schedule } from "./cases.mjs";
import { capnpLines, workerdModules } from "./workerd-modules.mjs";

const USAGE = [
  "usage: retryline worksheet <module> [--json]",
  "       retryline verify <module>",
  "       retryline workerd-modules [--embed <dir>]",
  "  <module>'s default export: the options of a RetryClient (families, budget, policy, …), or a client",
  "  workerd-modules: this package's modules for a plain workerd config, embedded from <dir> (default node_modules/retryline)",
].join("\n");

/** The options (or client) a module exports, and its `transports` (layers verify runs through). */
async function load(file) {
  const module = await import(pathToFileURL(resolve(process.cwd(), file)).href);
  const exported = module.default;
  if (exported === undefined || exported === null || typeof exported !== "object") throw new TypeError(`${file}: its default export must be the options of a RetryClient, or a client`);
  return { exported, transports: Array.isArray(module.transports) ? module.transports : [] };
}

/** A client of `options` (with `extra` ones) whose requests go to the loopback exchange, wherever their URL points. */
function routed(options, loopback, extra = {}) {
  const fetch = async (request) => {
    const url = new URL(request.url);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
    return globalThis.fetch(`${loopback.url}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, signal: request.signal });
  };
  return new RetryClient({ ...options, ...extra, fetch });
}

function workerd(args, out) {
  const embed = args[0] === "--embed" && args.length === 2 ? args[1] : args.length === 0 ? undefined : null;
  if (embed === null || embed === "") {
    out(USAGE);
    return 2;
  }
  const walk = workerdModules();
  out(`    (name = "${walk.entryDir}worker.js", esModule = embed "worker.js"), # your worker: it imports "retryline"`);
  for (const line of capnpLines(walk, embed)) out(`    ${line}`);
  return 0;
}

async function verify(file, out) {
  const { exported, transports } = await load(file);
  const isClient = exported instanceof RetryClient;
  const rows = (isClient ? exported : new RetryClient(exported)).worksheet().rows.filter((r) => r.family !== null);
  if (rows.length === 0) throw new TypeError(`${file}: no families to verify (families: [...])`);
  const loopback = await startLoopback();
  const failures = [];
  const started = performance.now();
  try {
    const client = isClient ? null : routed(exported, loopback);
    for (const row of rows) {
      const cases = [
        ["1 schedule", () => schedule(replay, row)],
        ["2 provider wait past the deadline", () => longWait(replay, row)],
        ["3 order lost while it fills", () => (client === null ? undefined : lostOrder(client, row, loopback))],
        ["4 restart during a wait", () => (client === null ? undefined : restart((extra) => routed(exported, loopback, extra), row, loopback))],
        ["5 transport layers", () => (client === null ? undefined : layers(client, row, loopback, transports))],
      ];
      for (const [name, run] of cases) {
        const problem = await run();
        if (problem === undefined) continue;
        out(`${problem === null ? "ok  " : "FAIL"} ${row.family}: case ${name}${problem === null ? "" : `: ${problem}`}`);
        if (problem !== null) failures.push(row.family);
      }
    }
  } finally {
    await loopback.close();
  }
  out(`${failures.length === 0 ? "verified" : `${failures.length} failed`}: ${rows.length} families in ${Math.round(performance.now() - started)} ms`);
  return failures.length === 0 ? 0 : 1;
}

export async function main(argv, out = (line) => process.stdout.write(`${line}\n`)) {
  const [command, file, flag] = argv;
  if (command === "workerd-modules") return workerd(argv.slice(1), out);
  if (file === undefined || !["worksheet", "verify"].includes(command)) {
    out(USAGE);
    return 2;
  }
  if (command === "verify") return verify(file, out);
  const { exported } = await load(file);
  const worksheet = (exported instanceof RetryClient ? exported : new RetryClient(exported)).worksheet();
  out(flag === "--json" ? JSON.stringify(worksheet, null, 2) : worksheet.toMarkdown());
  return 0;
}
