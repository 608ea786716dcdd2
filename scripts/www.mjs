// The dashboard of www/: built by Vite against the package as a user installs it (a
// www/node_modules/retryline link to this repository, as `npm install ..` makes), served as
// static files on 127.0.0.1 with /config.json naming the mock exchange, which runs beside it.
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockExchange } from "../tests/js/mock-exchange.mjs";
import { buildWasmCrate } from "./wasm-crate.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const www = join(root, "www");
const dist = join(www, "dist");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml" };

/** Builds www/ (and its contention simulator, www/sim) into www/dist with Vite. */
export async function buildDashboard() {
  buildWasmCrate({ dir: "www/sim", lib: "retryline_sim", out: join(www, "sim", "pkg") });
  const link = join(www, "node_modules", "retryline");
  if (!existsSync(link) && !lstatSync(link, { throwIfNoEntry: false })) {
    mkdirSync(join(www, "node_modules"), { recursive: true });
    symlinkSync(root, link);
  }
  const { build } = await import("vite");
  await build({ root: www, logLevel: "warn", build: { outDir: dist, emptyOutDir: true, target: "es2022" } });
}

/** Builds and serves the dashboard; resolves with { url, exchange, close() }. */
export async function serveDashboard({ port = 5173 } = {}) {
  await buildDashboard();
  const mock = await startMockExchange({ port: 0 });
  const config = JSON.stringify({ exchange: mock.url });
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/config.json") return res.writeHead(200, { "content-type": "application/json" }).end(config);
    const file = normalize(join(dist, path === "/" ? "index.html" : path));
    if (!file.startsWith(dist + sep)) return res.writeHead(403).end();
    let body;
    try {
      body = readFileSync(file);
    } catch {
      return res.writeHead(404).end("not found");
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    exchange: mock.url,
    close: async () => {
      server.closeAllConnections?.();
      await new Promise((r) => server.close(r));
      await mock.close();
    },
  };
}
