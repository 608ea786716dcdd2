// The dashboard of www/: built by Vite against the package as a user installs it (a
// www/node_modules/retryline link to this repository, as `npm install ..` makes), served as
// static files on 127.0.0.1 with /config.json naming the mock exchange, which runs beside it, and
// /worksheet.json the worksheet of the page's configuration (www/config.js, the families its
// clients run) on that exchange: the browser build has no worksheet, so the Node build makes it.
import { lstatSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockExchange } from "../tests/js/mock-exchange.mjs";
import { serveStatic } from "./static-server.mjs";
import { buildWasmCrate } from "./wasm-crate.mjs";
import { clientOptions } from "../www/config.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const www = join(root, "www");
const dist = join(www, "dist");

/** Builds www/ (and its contention simulator, www/sim) into www/dist with Vite. */
export async function buildDashboard() {
  buildWasmCrate({ dir: "www/sim", lib: "retryline_sim", out: join(www, "sim", "pkg") });
  const link = join(www, "node_modules", "retryline");
  if (!lstatSync(link, { throwIfNoEntry: false })) {
    mkdirSync(join(www, "node_modules"), { recursive: true });
    symlinkSync(root, link);
  }
  const { build } = await import("vite");
  await build({ root: www, logLevel: "warn", build: { outDir: dist, emptyOutDir: true, target: "es2022" } });
}

/** The worksheet of the page's clients on the mock exchange at `exchange`, as JSON. */
export async function dashboardWorksheet(exchange) {
  // Imported here, not at the top: npm start imports this module before it builds pkg/.
  const { Budget, RetryClient } = await import("../js/node.js");
  return JSON.stringify(new RetryClient(clientOptions({ exchange, Budget })).worksheet().toJSON());
}

/** Builds and serves the dashboard; resolves with { url, exchange, close() }. */
export async function serveDashboard({ port = 5173 } = {}) {
  await buildDashboard();
  const mock = await startMockExchange({ port: 0 });
  const config = JSON.stringify({ exchange: mock.url });
  const worksheet = await dashboardWorksheet(mock.url);
  const routes = { "/config.json": { type: "application/json", body: config }, "/worksheet.json": { type: "application/json", body: worksheet } };
  const site = await serveStatic({ root: dist, port, routes });
  return {
    url: `${site.origin}/`,
    exchange: mock.url,
    close: async () => {
      await site.close();
      await mock.close();
    },
  };
}
