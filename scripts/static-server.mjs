// Static files on 127.0.0.1: the dashboard (npm start) and the tests' pages. `routes` answer
// fixed paths (a page, a config) first; `allow(path)` limits which files may be served.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml" };

/** Resolves with { origin, port, close() } once listening on `port` (0: any free one). */
export async function serveStatic({ root, routes = {}, allow = () => true, port = 0 }) {
  const base = normalize(root).replace(/\/$/, "");
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const route = routes[path];
    if (route) return res.writeHead(200, { "content-type": route.type }).end(route.body);
    const file = normalize(join(base, path === "/" ? "index.html" : path));
    if (!file.startsWith(base + sep) || !allow(path)) return res.writeHead(404).end("not found");
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
  const actual = server.address().port;
  return {
    origin: `http://127.0.0.1:${actual}`,
    port: actual,
    close: () => {
      server.closeAllConnections?.();
      return new Promise((r) => server.close(r));
    },
  };
}
