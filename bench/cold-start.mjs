// Cold start: from starting to load the library until a first call can be made ("ready"), and until
// that first call has answered ("first response"), against the peers, in three runtimes. Everything
// is loaded from the fresh project (lib/fresh-project.mjs: the npm tarball installed, the peers
// symlinked), so each runtime picks its own entry through package.json "exports".
//
// * Node: a fresh `node` process per sample runs a small script in the project: performance.now()
//   around `await import("retryline")` (and, a row of its own, the lean `retryline/fetch`) +
//   `new RetryClient({ fetch: stub })`, then one call on an
//   instant stub fetch. Also the process's own age at ready (performance.now() counts from its start)
//   and the CPU time of the same spans (process.cpuUsage(): every thread, so background compilation
//   too), which moves less than wall time when the machine is busy.
// * Chromium (headless, /usr/bin/chromium): the Vite build of a page that does the same behind a
//   dynamic import (lib/pages.mjs, "cold" pages: one per entry that has one), served from 127.0.0.1, each sample in a new browser
//   context, with the CPU slowed 4× (CDP Emulation.setCPUThrottlingRate) before navigation; timed in
//   the page with performance.now(). The first call goes to the page's own server (GET /ok). The
//   same again unthrottled: Chromium's throttling is not a slower CPU but a second thread that
//   signals the renderer's main thread and sleeps in the handler, so waits (the network, wasm
//   compiled on background threads) stretch too, in coarse steps — a loopback fetch alone goes from
//   ~10 ms to 45–125 ms — and the 4× figures scatter widely.
// * workerd: a new process per sample serving one worker: time from spawn to the socket listening
//   (workerd compiles and evaluates the worker's modules before it listens), and to the answer to
//   the first request, whose handler constructs the client and makes one call on an instant stub
//   fetch. Inside a worker the clock stands still while code runs, so only outside times mean
//   anything; a worker without any library is the floor. Also the CPU time all of workerd's threads
//   had used when the first answer arrived (/proc/<pid>/task/*/schedstat), steadier than wall time. retryline runs as the package ships (the
//   modules of its "workerd" entry, listed in the config as tests/js/package/workerd-harness.mjs
//   does); ky and p-retry are bundled into one module by esbuild (workerd resolves no packages).
//
// Samples are interleaved (each round runs every contender, in a rotated order); medians reported.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { buildPage, pageLibraries, serveDist } from "./lib/pages.mjs";
import { versionOf } from "./lib/versions.mjs";
import { timeLimit } from "./lib/time-limit.mjs";

const median = (xs) => {
  const s = xs.filter((x) => typeof x === "number").sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
};

/** Runs every contender `samples` times, interleaved; sample(c) resolves to an object of numbers. */
async function interleaved(contenders, samples, sample, log) {
  const results = contenders.map(() => ({ samples: [], errors: [] }));
  for (let round = 0; round < samples; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = (k + round) % contenders.length;
      try {
        results[i].samples.push(await sample(contenders[i]));
      } catch (error) {
        results[i].errors.push(error.message.split("\n")[0]);
        if (results[i].errors.length === 1) log(`  ${contenders[i].name}: ${error.message.split("\n")[0]}`);
      }
    }
  }
  return contenders.map((c, i) => {
    const { samples: got, errors } = results[i];
    const keys = [...new Set(got.flatMap((s) => Object.keys(s)))].filter((k) => got.some((s) => typeof s[k] === "number"));
    return {
      id: c.id,
      name: c.name,
      n: got.length,
      ...Object.fromEntries(keys.map((k) => [k, median(got.map((s) => s[k]))])),
      ...Object.fromEntries(keys.map((k) => [`${k}Range`, [Math.min(...got.map((s) => s[k])), Math.max(...got.map((s) => s[k]))]])),
      ...(errors.length ? { errors: [...new Set(errors)] } : {}),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Node

const NODE_SCRIPT = `// Written by bench/cold-start.mjs: one cold-start sample.
const id = process.argv[2];
const url = "http://127.0.0.1:9/ok";
const stub = () => Promise.resolve(new Response("ok"));
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let t1;
let cpu1;
let res;
if (id === "retryline" || id === "retryline-fetch") {
  const { RetryClient } = await import(id === "retryline" ? "retryline" : "retryline/fetch");
  const client = new RetryClient({ fetch: stub });
  t1 = performance.now();
  cpu1 = process.cpuUsage(cpu0);
  res = await client.fetch(url);
} else if (id === "ky") {
  const { default: ky } = await import("ky");
  t1 = performance.now();
  cpu1 = process.cpuUsage(cpu0);
  res = await ky(url, { fetch: stub });
} else if (id === "p-retry") {
  const { default: pRetry } = await import("p-retry");
  t1 = performance.now();
  cpu1 = process.cpuUsage(cpu0);
  res = await pRetry(async () => { const r = await stub(url); if (!r.ok) throw new Error("HTTP " + r.status); return r; }, { retries: 2 });
} else {
  t1 = performance.now();
  cpu1 = process.cpuUsage(cpu0);
  res = await stub(url);
}
if ((await res.text()) !== "ok") throw new Error("unexpected body");
const t2 = performance.now();
const cpu2 = process.cpuUsage(cpu0);
const ms = (c) => (c.user + c.system) / 1000;
process.stdout.write(JSON.stringify({ readyMs: t1 - t0, firstResponseMs: t2 - t0, processAgeAtReadyMs: t1, readyCpuMs: ms(cpu1), firstResponseCpuMs: ms(cpu2) }) + "\\n");
`;

const nodeContenders = [
  { id: "none", name: "no library (stub call only)" },
  { id: "retryline", name: "retryline" },
  // The lean entry where the package has it: in Node it compiles its inlined bytes (browser-fetch).
  { id: "retryline-fetch", name: "retryline/fetch (the lean entry)", needsExport: "./fetch" },
  { id: "ky", name: "ky" },
  { id: "p-retry", name: "p-retry" },
];

function nodeSample(dir, id) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [join(dir, "cold-node.mjs"), id], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      try {
        if (code === 0) return resolve(JSON.parse(out));
      } catch {}
      reject(new Error(`node sample ${id}: ${signal ?? `exit ${code}`} ${err.trim().split("\n").slice(-2).join(" / ")}`));
    });
  });
}

/** The package's export map as installed in the fresh project. */
const exportsOf = (project) => JSON.parse(readFileSync(join(project.dir, "node_modules", "retryline", "package.json"), "utf8")).exports ?? {};

async function coldNode(project, { samples, log }) {
  writeFileSync(join(project.dir, "cold-node.mjs"), NODE_SCRIPT);
  const exportsMap = exportsOf(project);
  const contenders = nodeContenders.filter((c) => !c.needsExport || c.needsExport in exportsMap);
  const rows = await interleaved(contenders, samples, (c) => nodeSample(project.dir, c.id), log);
  return { samples, rows };
}

// ---------------------------------------------------------------------------------------------
// Chromium

async function coldChromium(project, { browser, samples, cpuThrottles, log }) {
  const servers = [];
  try {
    const pages = [];
    const exportsMap = exportsOf(project);
    for (const lib of pageLibraries.filter((l) => l.cold && (!l.needsExport || l.needsExport in exportsMap))) {
      try {
        const { outDir } = await buildPage(project.dir, lib, "cold");
        const server = await serveDist(outDir);
        servers.push(server);
        pages.push({ id: lib.id, name: lib.id === "fetch" ? "no library (fetch only)" : lib.name, origin: server.origin });
      } catch (error) {
        log(`  ${lib.name}: ${error.message.split("\n")[0]}`);
      }
    }
    const runs = [];
    for (const cpuThrottle of cpuThrottles) {
      log(`  chromium, CPU ${cpuThrottle}× slower`);
      const rows = await interleaved(pages, samples, async (c) => {
        const { value } = await browser.visit(`${c.origin}/`, () => window.__cold, { cpuThrottle, timeoutMs: 30_000 });
        if (value.error) throw new Error(value.error);
        if (value.status !== 200) throw new Error(`first call answered ${value.status}`);
        return { readyMs: value.ready, firstResponseMs: value.firstResponse, navToReadyMs: value.navToReady };
      }, log);
      runs.push({ cpuThrottle, rows });
    }
    return { samples, chromium: browser.version, runs };
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

// ---------------------------------------------------------------------------------------------
// workerd

const HANDLER = (construct, call) => `export default {
  async fetch() {
    const stub = () => Promise.resolve(new Response("ok"));
    ${construct}
    const res = await ${call};
    return new Response(JSON.stringify({ body: await res.text(), status: res.status }), { headers: { "content-type": "application/json" } });
  },
};
`;

const workerdContenders = [
  { id: "none", name: "no library (floor)", source: HANDLER("", `stub("http://127.0.0.1:9/ok")`) },
  { id: "retryline", name: "retryline (package modules as shipped)", source: `import { RetryClient } from "retryline";\n` + HANDLER(`const client = new RetryClient({ fetch: stub });`, `client.fetch("http://127.0.0.1:9/ok")`) },
  { id: "ky", name: "ky (esbuild bundle)", source: `import ky from "ky";\n` + HANDLER("", `ky("http://127.0.0.1:9/ok", { fetch: stub })`), bundle: true },
  { id: "p-retry", name: "p-retry (esbuild bundle)", bundle: true,
    source: `import pRetry from "p-retry";\n` + HANDLER("", `pRetry(async () => { const r = await stub("http://127.0.0.1:9/ok"); if (!r.ok) throw new Error("HTTP " + r.status); return r; }, { retries: 2 })`) },
];

const capnp = (modules) => `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .benchWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const benchWorker :Workerd.Worker = (
  modules = ${modules},
  compatibilityDate = "2025-09-01",
);
`;

/** CPU time so far of every thread of a live process, in ms (Linux /proc/<pid>/task/<tid>/schedstat, ns). */
function cpuMsOf(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

async function coldWorkerd(project, { samples, log }) {
  const { capnpModules, startWorkerd } = await import("../tests/js/package/workerd-harness.mjs");
  const contenders = [];
  for (const c of workerdContenders) {
    try {
      if (c.id === "retryline") {
        // capnpModules copies the worker to <dir>/src/worker.js and lists the package's workerd modules.
        const file = join(project.dir, "workerd-retryline.js");
        writeFileSync(file, c.source);
        contenders.push({ ...c, dir: project.dir, config: capnp(capnpModules(project.dir, file)) });
      } else {
        const dir = join(project.dir, `workerd-${c.id}`);
        mkdirSync(dir, { recursive: true });
        if (c.bundle) {
          const entry = join(project.dir, `workerd-${c.id}-entry.js`);
          writeFileSync(entry, c.source);
          await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "browser", target: "es2022", outfile: join(dir, "worker.js"), logLevel: "silent" });
        } else {
          writeFileSync(join(dir, "worker.js"), c.source);
        }
        contenders.push({ ...c, dir, config: capnp(`[ (name = "worker.js", esModule = embed "worker.js") ]`) });
      }
    } catch (error) {
      log(`  ${c.name}: ${error.message.split("\n")[0]}`);
    }
  }
  const rows = await interleaved(contenders, samples, async (c) => {
    const started = performance.now();
    const worker = await startWorkerd({ dir: c.dir, config: c.config, startupTimeoutMs: 20_000, requestTimeoutMs: 10_000 });
    try {
      const listening = performance.now();
      const answer = await timeLimit(worker.call("/"), 15_000, "first request");
      const answered = performance.now();
      if (answer.body !== "ok") throw new Error(`worker answered ${JSON.stringify(answer)}`);
      const pid = Number([...worker.log().matchAll(/workerd started \(pid (\d+)\)/g)].at(-1)?.[1]);
      return { listenMs: listening - started, firstResponseMs: answered - started, cpuMs: cpuMsOf(pid) };
    } finally {
      await worker.stop();
    }
  }, log);
  return { samples, workerd: versionOf("workerd"), rows };
}

// ---------------------------------------------------------------------------------------------

export async function measureColdStart(project, { browser, nodeSamples = 10, chromiumSamples = 10, workerdSamples = 10, cpuThrottles = [4, 1], log = () => {} } = {}) {
  const out = { fingerprint: project.fingerprint };
  log("  node");
  out.node = await coldNode(project, { samples: nodeSamples, log });
  if (browser) {
    out.chromium = await coldChromium(project, { browser, samples: chromiumSamples, cpuThrottles, log });
  } else {
    out.chromium = { error: "chromium did not start" };
  }
  log("  workerd");
  try {
    out.workerd = await coldWorkerd(project, { samples: workerdSamples, log });
  } catch (error) {
    log(`  workerd: ${error.message.split("\n")[0]}`);
    out.workerd = { error: error.message.split("\n")[0] };
  }
  return out;
}
