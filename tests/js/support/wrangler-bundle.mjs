// A worker bundled as `wrangler deploy` bundles it: esbuild with Wrangler's export conditions, each
// imported .wasm kept as a module of its own beside the bundle (workerd compiles it).
import { copyFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { build } from "esbuild";

/** Bundles `entry` into `dist/worker.js`; resolves with the .wasm modules copied next to it. */
export async function bundleLikeWrangler(entry, dist) {
  mkdirSync(dist, { recursive: true });
  const wasms = new Set();
  const wasm = { name: "wasm-module", setup(b) {
    b.onResolve({ filter: /\.wasm$/ }, (args) => {
      const file = basename(args.path);
      copyFileSync(join(args.resolveDir, args.path), join(dist, file));
      wasms.add(file);
      return { path: `./${file}`, external: true };
    });
  } };
  await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", outfile: join(dist, "worker.js"),
    conditions: ["workerd", "worker", "browser"], mainFields: ["browser", "module", "main"], plugins: [wasm], logLevel: "silent" });
  return wasms;
}

/** workerd's config for a bundle made by bundleLikeWrangler in `dist/`, reaching any address, with
 * `bindings` and Durable Object `namespaces` (capnp lines), their storage in memory. */
export function workerdConfig({ wasms, compatibilityDate, bindings, namespaces }) {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w), (name = "internet", network = (allow = ["public", "private", "local"])) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const w :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "dist/worker.js"), ${[...wasms].map((f) => `(name = ${JSON.stringify(f)}, wasm = embed ${JSON.stringify(`dist/${f}`)})`).join(", ")} ],
  compatibilityDate = ${JSON.stringify(compatibilityDate)},
  globalOutbound = "internet",
  bindings = [ ${bindings.join(", ")} ],
  ${namespaces.length ? `durableObjectNamespaces = [ ${namespaces.join(", ")} ], durableObjectStorage = (inMemory = void),` : ""}
);
`;
}
