// Browser pages for the bundle and cold-start sections: their sources, their Vite builds (in the fresh
// project, where "retryline" is the installed tarball and the peers are symlinked), what each build
// emitted, and a static server on 127.0.0.1 for a build's dist/ (plus GET /ok → 200 "ok").
//
// Two pages per library:
//   call  what a user writes to make one call: `import { RetryClient } from "retryline";
//         new RetryClient().fetch(url)` (ky: `ky(url)`; p-retry: `pRetry(() => fetch(url) …)`).
//         The result goes to window.__status, the same few bytes in every page.
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
    // The same page on the package's inline entry, when it has one (wasm as base64 in the JS).
    id: "retryline-inline",
    name: "retryline/inline (wasm inlined)",
    needsExport: "./inline",
    call: `import { RetryClient } from "retryline/inline";\nconst url = location.origin + "/ok";\nnew RetryClient().fetch(url)${report}\n`,
    cold: null,
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
  const { code, signal, out, err } = await runNode([vite, "build", root, "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"], { cwd: dir, env, timeoutMs });
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

/** Every file a build emitted, except index.html: { path, bytes, gzip (level 9), brotli }. */
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
    .filter((p) => p !== "index.html")
    .sort()
    .map((path) => {
      const bytes = readFileSync(join(outDir, path));
      return { path, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotliCompressSync(bytes).length };
    });
}

const MIME = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json" };

/** Serves a dist folder on 127.0.0.1 (no caching) and GET /ok; records the paths asked for. */
export async function serveDist(root) {
  const served = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    served.push(path);
    if (path === "/ok") {
      res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" }).end("ok");
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
