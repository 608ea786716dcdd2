// Browser pages for the bundle and cold-start sections: their sources, their Vite builds (in the fresh
// project, where "retryline" is the installed tarball and the peers are symlinked), what each build
// emitted and which of it the page loads before its code runs, and a static server on 127.0.0.1 for
// a build's dist/ (plus /ok → 200 "ok", /fail → 503, and a WebSocket handshake refused with a 503).
//
// Two pages per library:
//   call  what a user writes to make one call: `import { RetryClient } from "retryline";
//         new RetryClient().fetch(url)` (ky: `ky(url)`; p-retry: `pRetry(() => fetch(url) …)`).
//         The result goes to window.__status, the same few bytes in every page. retryline has one
//         per entry (the default, the lean `retryline/fetch`, `retryline/inline`, `retryline/csp`),
//         a page that streams from the start (a stream opened, then one call), and a page that uses
//         every feature (a client with a store, a shared Budget, a keyed order, reconcile, resolve,
//         asFetch, budget.snapshot(), replay, a stream), which loads every chunk the package splits off.
//   cold  the same call behind a dynamic import, timed in the page with performance.now():
//         import → ready (the import resolved and the client exists, so a call can be made)
//         import → first response (the first call answered and its body read).
import { createServer } from "node:http";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, relative, sep } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { runNode } from "./child.mjs";

const report = `.then((r) => r.text().then(() => (window.__status = r.status)), (e) => (window.__status = String(e)));`;

export const pageLibraries = [
  {
    id: "fetch",
    name: "fetch alone (no library: Vite's own bytes)",
    call: `const url = location.origin + "/ok";\nfetch(url)${report}\n`,
    cold: { load: "", ready: "", first: "const res = await fetch(url);" },
  },
  {
    id: "retryline",
    name: "retryline",
    call: `import { RetryClient } from "retryline";\nconst url = location.origin + "/ok";\nnew RetryClient().fetch(url)${report}\n`,
    cold: { load: `const { RetryClient } = await import("retryline");`, ready: "const client = new RetryClient();", first: "const res = await client.fetch(url);" },
  },
  {
    // The lean entry: the fetch path alone, in a smaller wasm (package.json "./fetch").
    id: "retryline-fetch",
    name: "retryline/fetch (the lean entry)",
    needsExport: "./fetch",
    call: `import { RetryClient } from "retryline/fetch";\nconst url = location.origin + "/ok";\nnew RetryClient().fetch(url)${report}\n`,
    cold: { load: `const { RetryClient } = await import("retryline/fetch");`, ready: "const client = new RetryClient();", first: "const res = await client.fetch(url);" },
  },
  {
    // A page that streams from the start (the default entry): a stream opened, then one call. The
    // page's server refuses the handshake (503), so the stream never connects; once the call has
    // answered it is closed, and __status is 200 only if it stopped as closed ("aborted").
    id: "retryline-stream",
    name: "retryline, a page that streams from the start",
    call: `import { RetryClient } from "retryline";
const url = location.origin + "/ok";
const client = new RetryClient();
const stream = client.stream(location.origin.replace(/^http/, "ws") + "/ws");
const stopped = new Promise((resolve) => stream.addEventListener("stop", (e) => resolve(e.reason)));
client.fetch(url).then(
  async (r) => {
    await r.text();
    stream.close();
    const why = await stopped;
    window.__status = why === "aborted" && stream.state === "stopped" ? r.status : "the stream stopped with " + why + ", state " + stream.state;
  },
  (e) => (stream.close(), (window.__status = String(e))),
);
`,
    cold: null,
  },
  {
    // Every feature, each used once; __status is 200 only if each did what it should.
    id: "retryline-all",
    name: "retryline, every feature",
    call: `import { RetryClient, Budget, RetryError, replay } from "retryline";
const url = location.origin + "/ok";
const failing = location.origin + "/fail"; // answers 503: an order sent there ends with an unknown outcome
const unknown = (client, key) => client.fetch(failing, { method: "POST", body: "{}" }, { key }).then(
  () => { throw new Error(key + " succeeded"); },
  (e) => { if (!(e instanceof RetryError) || e.reason !== "unknown-outcome") throw e; });
async function main() {
  const budget = new Budget({ capacity: 50, refillPerSecond: 10, share: "bench" });
  const client = new RetryClient({ budget, store: new Map(), policy: { attemptTimeoutMs: 5000 } });
  const order = await client.fetch(url, { method: "POST", body: "{}" }, { operation: "order", key: "cid-1" });
  await order.text();
  await unknown(client, "cid-2");
  const reconciled = await client.reconcile("cid-2", async () => "filled");
  if (!reconciled.resolved) throw new Error("reconcile: " + JSON.stringify(reconciled));
  await unknown(client, "cid-3");
  const resolved = await client.resolve("cid-3", "canceled");
  if (!resolved.resolved) throw new Error("resolve: " + JSON.stringify(resolved));
  const res = await client.asFetch()(url);
  await res.text();
  if (!Array.isArray(budget.snapshot())) throw new Error("snapshot");
  // A stream made and closed: its driver's chunk loads, so the page pays for it.
  const stream = client.stream(location.origin.replace(/^http/, "ws") + "/ws");
  stream.close();
  const replayed = replay({ policy: { maxAttempts: 2 }, draws: [0], outcomes: [{ afterMs: 5, status: 503 }, { afterMs: 5, status: 200 }] });
  if (replayed.stop.reason !== "success") throw new Error("replay: " + JSON.stringify(replayed.stop));
  return res.status;
}
main().then((s) => (window.__status = s), (e) => (window.__status = String(e && e.stack || e)));
`,
    cold: null,
  },
  {
    // The same page on the package's inline entry, when it has one (wasm as base64 in the JS).
    id: "retryline-inline",
    name: "retryline/inline (wasm inlined)",
    needsExport: "./inline",
    call: `import { RetryClient } from "retryline/inline";\nconst url = location.origin + "/ok";\nnew RetryClient().fetch(url)${report}\n`,
    cold: null,
  },
  {
    // The strict-CSP entry: the same core as JavaScript (wasm2js), no 'wasm-unsafe-eval' needed.
    id: "retryline-csp",
    name: "retryline/csp (core as JavaScript, wasm2js)",
    needsExport: "./csp",
    call: `import { RetryClient } from "retryline/csp";\nconst url = location.origin + "/ok";\nnew RetryClient().fetch(url)${report}\n`,
    cold: { load: `const { RetryClient } = await import("retryline/csp");`, ready: "const client = new RetryClient();", first: "const res = await client.fetch(url);" },
  },
  {
    id: "ky",
    name: "ky",
    call: `import ky from "ky";\nconst url = location.origin + "/ok";\nky(url)${report}\n`,
    cold: { load: `const { default: ky } = await import("ky");`, ready: "", first: "const res = await ky(url);" },
  },
  {
    id: "p-retry",
    name: "p-retry + fetch",
    call:
      `import pRetry from "p-retry";\nconst url = location.origin + "/ok";\n` +
      `pRetry(async () => { const r = await fetch(url); if (!r.ok) throw new Error("HTTP " + r.status); return r; }, { retries: 2 })${report}\n`,
    cold: {
      load: `const { default: pRetry } = await import("p-retry");`,
      ready: "",
      first: `const res = await pRetry(async () => { const r = await fetch(url); if (!r.ok) throw new Error("HTTP " + r.status); return r; }, { retries: 2 });`,
    },
  },
];

function coldSource({ load, ready, first }) {
  return [
    `const url = location.origin + "/ok";`,
    `async function main() {`,
    `  const t0 = performance.now();`,
    `  ${load}`,
    `  ${ready}`,
    `  const t1 = performance.now();`,
    `  ${first}`,
    `  await res.text();`,
    `  const t2 = performance.now();`,
    `  window.__cold = { ready: t1 - t0, firstResponse: t2 - t0, navToReady: t1, status: res.status };`,
    `}`,
    `main().catch((e) => (window.__cold = { error: String(e && e.stack || e) }));`,
    ``,
  ].join("\n");
}

const html = `<!doctype html>\n<html lang="en">\n  <head><meta charset="utf-8" /><link rel="icon" href="data:," /><title>bench</title></head>\n  <body><script type="module" src="./main.js"></script></body>\n</html>\n`;

async function viteBuild(dir, root, outDir, timeoutMs) {
  const vite = join(dir, "node_modules", "vite", "bin", "vite.js");
  const env = { ...process.env, NO_COLOR: "1", CI: "1" };
  const { code, signal, out, err } = await runNode([vite, "build", root, "--outDir", outDir, "--emptyOutDir", "--manifest", "--logLevel", "warn"], { cwd: dir, env, timeoutMs });
  if (code === 0) return out + err;
  throw new Error(`vite build ${root} failed (${signal ?? code}): ${(out + err).slice(-1500)}`);
}

/** Builds one page of one library in the fresh project; resolves to its dist folder. */
export async function buildPage(dir, lib, kind, { timeoutMs = 90_000 } = {}) {
  const root = join(dir, "pages", `${lib.id}-${kind}`);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "index.html"), html);
  writeFileSync(join(root, "main.js"), kind === "call" ? lib.call : coldSource(lib.cold));
  const outDir = join(dir, "dist", `${lib.id}-${kind}`);
  const started = performance.now();
  const log = await viteBuild(dir, root, outDir, timeoutMs);
  return { outDir, buildMs: performance.now() - started, warnings: log.trim() };
}

/**
 * What a build's page loads before its code runs (Vite's manifest, `--manifest`): the entry chunk,
 * the chunks it imports statically (recursively), and their CSS and assets (a `new URL(…,
 * import.meta.url)` .wasm is an asset of the chunk that names it). Paths as emittedFiles gives them.
 * Whatever else is emitted loads only behind an `import()`.
 */
export function staticallyLoaded(outDir) {
  const manifest = JSON.parse(readFileSync(join(outDir, ".vite", "manifest.json"), "utf8"));
  const loaded = new Set();
  const visit = (key) => {
    const chunk = manifest[key];
    if (!chunk || loaded.has(chunk.file)) return;
    loaded.add(chunk.file);
    for (const f of [...(chunk.css ?? []), ...(chunk.assets ?? [])]) loaded.add(f);
    for (const k of chunk.imports ?? []) visit(k);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
  return loaded;
}

/** Every file a build emitted, except index.html and Vite's manifest: { path, bytes, gzip (level 9), brotli }. */
export function emittedFiles(outDir) {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(outDir);
  return files
    .map((p) => relative(outDir, p).split(sep).join("/"))
    .filter((p) => p !== "index.html" && !p.startsWith(".vite/"))
    .sort()
    .map((path) => {
      const bytes = readFileSync(join(outDir, path));
      return { path, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotliCompressSync(bytes).length };
    });
}

const MIME = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json" };

/** Serves a dist folder on 127.0.0.1 (no caching), /ok (200) and /fail (503), and refuses every
 * WebSocket handshake with a bare 503 (a stream that never connects); records the paths asked for. */
export async function serveDist(root) {
  const served = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    served.push(path);
    if (path === "/ok" || path === "/fail") {
      res.writeHead(path === "/ok" ? 200 : 503, { "content-type": "text/plain", "cache-control": "no-store" }).end(path === "/ok" ? "ok" : "unavailable");
      return;
    }
    const file = normalize(join(root, path === "/" ? "index.html" : path));
    if (!file.startsWith(root + sep)) return void res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  server.on("upgrade", (req, socket) => {
    served.push(decodeURIComponent(new URL(req.url, "http://x").pathname));
    socket.on("error", () => {});
    socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    served,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

export const fileSize = (p) => statSync(p).size;
