// (d) Size: the bytes each entry loads, every file compressed on its own (as a server sends it):
// raw, gzip -9 and brotli.
//
// Browsers: esbuild bundles an entry importing what a retrying GET needs (ESM, minified,
// tree-shaken, `splitting` on, so each `import()` of the package becomes a chunk of its own, as
// bundlers split them). Loaded = the entry chunk and the chunks it imports statically; esbuild emits
// no asset for `new URL("../pkg/browser.wasm", import.meta.url)`, so the page entries (the default
// js/browser.js, the lean js/fetch.js) load their fallback, the inlined bytes (a chunk of their
// own), counted as loaded. The chunks behind `import()` (asFetch, the tab locks) load only with a
// call that needs them and are counted apart (lazy). The inline entry (js/inline.js,
// "retryline/inline") carries its wasm as base64 in its JS. One row uses every export
// (RetryClient, Budget, RetryError, replay), and counts every chunk: what a page that uses every
// feature loads.
//
// Runtimes that don't download (Node, workerd, the Durable Object): the graph of the entry's
// imports (esbuild's metafile: static and dynamic, as the files ship, unminified) and its wasm.
//
// pkg/sizes.json (scripts/build.mjs) adds each wasm module's bytes.
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { versionOf } from "./lib/versions.mjs";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

export const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;
export const brotli = (bytes) => brotliCompressSync(bytes).length;
/** One file's sizes: { path, bytes, gzip, brotli }. */
export const sized = (path, bytes) => ({ path, bytes: bytes.length, gzip: gzip(bytes), brotli: brotli(bytes) });
/** Sums of files' sizes. */
export const total = (files) => ({
  count: files.length,
  rawBytes: files.reduce((s, f) => s + f.bytes, 0),
  gzipBytes: files.reduce((s, f) => s + f.gzip, 0),
  brotliBytes: files.reduce((s, f) => s + f.brotli, 0),
});

// The .wasm a browser entry loads as an asset (null when it inlines the bytes).
function wasmAssetOf(entry) {
  const spec = readFileSync(`${root}/${entry}`, "utf8").match(/new URL\(\s*["'`]([^"'`]+\.wasm)["'`]\s*,\s*import\.meta\.url\s*\)/)?.[1];
  return spec ? fileURLToPath(new URL(spec, new URL(entry, `file://${root}/`))) : null;
}

export const entries = [
  // esbuild emits no asset for `new URL(…, import.meta.url)`: the browser entry then loads its
  // fallback, the inlined bytes (a chunk of their own), not browser.wasm.
  { id: "retryline", name: "retryline, a retrying GET (browser entry; no asset from esbuild: the inlined bytes)", packages: ["retryline"], code: 'import { RetryClient } from "./js/browser.js"; export { RetryClient };', entry: "js/browser.js", fallback: /browser-inline/ },
  { id: "retryline-fetch", name: "retryline/fetch, a retrying GET (the lean entry; no asset from esbuild: the inlined bytes)", packages: ["retryline"], code: 'import { RetryClient } from "./js/fetch.js"; export { RetryClient };', entry: "js/fetch.js", fallback: /browser-fetch-inline/ },
  { id: "retryline-all", name: "retryline, every export (RetryClient, Budget, RetryError, replay): all chunks", packages: ["retryline"], all: true,
    code: 'export { RetryClient, Budget, RetryError, replay } from "./js/browser.js";', entry: "js/browser.js", fallback: /browser-inline/ },
  ...(existsSync(`${root}/js/inline.js`)
    ? [{ id: "retryline-inline", name: "retryline/inline, a retrying GET (wasm inlined)", packages: ["retryline"], code: 'import { RetryClient } from "./js/inline.js"; export { RetryClient };', entry: "js/inline.js" }]
    : []),
  { id: "p-retry", name: "p-retry", packages: ["p-retry"], code: 'export { default } from "p-retry";' },
  { id: "ky", name: "ky", packages: ["ky"], code: 'export { default } from "ky";' },
  { id: "cockatiel", name: "cockatiel (retry, handleAll, ExponentialBackoff)", packages: ["cockatiel"], code: 'export { retry, handleAll, ExponentialBackoff } from "cockatiel";' },
  { id: "exponential-backoff", name: "exponential-backoff", packages: ["exponential-backoff"], code: 'export { backOff } from "exponential-backoff";' },
  { id: "fetch-retry", name: "fetch-retry", packages: ["fetch-retry"], code: 'export { default } from "fetch-retry";' },
  { id: "axios-retry", name: "axios-retry (alone; needs axios)", packages: ["axios-retry"], code: 'export { default } from "axios-retry";' },
  { id: "axios+axios-retry", name: "axios + axios-retry", packages: ["axios", "axios-retry"], code: 'export { default as axios } from "axios"; export { default as axiosRetry } from "axios-retry";' },
];

/** esbuild's split bundle of `code`: { loaded: [file], lazy: [file] } (chunk paths relative to the outdir). */
async function bundle(code) {
  const outdir = `${root}/target/bench-size`; // nothing is written: write: false
  const result = await build({
    stdin: { contents: code, resolveDir: root, sourcefile: "entry.js", loader: "js" },
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    outdir,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const outputs = result.metafile.outputs;
  const contents = new Map(result.outputFiles.map((f) => [resolve(f.path), f.contents]));
  const name = (key) => relative(outdir, resolve(root, key));
  const entry = Object.keys(outputs).find((k) => outputs[k].entryPoint !== undefined && k.endsWith(".js"));
  const loaded = new Set();
  const visit = (key) => {
    if (loaded.has(key)) return;
    loaded.add(key);
    for (const i of outputs[key].imports) if (i.kind === "import-statement" && outputs[i.path]) visit(i.path);
  };
  visit(entry);
  const file = (key) => sized(name(key), contents.get(resolve(root, key)));
  const js = Object.keys(outputs).filter((k) => k.endsWith(".js"));
  return { loaded: js.filter((k) => loaded.has(k)).map(file), lazy: js.filter((k) => !loaded.has(k)).map(file) };
}

/** The graph of a runtime entry's imports as shipped: { files: [file], dynamic: [path], external: [spec] }. */
async function moduleGraph(entry) {
  const wasmExternal = { name: "wasm-external", setup(b) { b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: join(args.resolveDir, args.path), external: true })); } };
  const result = await build({
    entryPoints: [join(root, entry)], absWorkingDir: root, bundle: true, write: false, metafile: true, format: "esm", platform: "neutral",
    external: ["node:*"], plugins: [wasmExternal], logLevel: "silent",
  });
  const inputs = result.metafile.inputs;
  const dynamic = new Set();
  const external = new Set();
  for (const input of Object.values(inputs)) {
    for (const i of input.imports) {
      if (i.external) external.add(i.original ?? i.path);
      else if (i.kind === "dynamic-import") dynamic.add(i.path);
    }
  }
  const files = Object.keys(inputs).sort().map((p) => sized(p, readFileSync(join(root, p))));
  return { files, dynamic: [...dynamic], external: [...external].filter((s) => !s.endsWith(".wasm")) };
}

export const runtimes = [
  { id: "node", name: "Node (`node` condition)", entry: "js/node.js", wasm: null, how: "the bytes inlined as base64 (pkg/server-inline.cjs, deflated, inflated by node:zlib), new WebAssembly.Module at import" },
  { id: "workerd", name: "workerd (`workerd` condition)", entry: "js/workerd.js", wasm: "pkg/server.wasm", how: "the runtime compiles the imported .wasm module" },
  { id: "durable-object", name: "Durable Object (`retryline/durable-object`)", entry: "js/durable-object.js", wasm: "pkg/authority.wasm", how: "the runtime compiles the imported .wasm module" },
];

export async function measureSize() {
  const rows = [];
  for (const e of entries) {
    const row = { id: e.id, name: e.name, versions: e.packages.map((p) => `${p}@${versionOf(p)}`).join(" ") };
    rows.push(row);
    try {
      const bundled = await bundle(e.code);
      const fallback = e.fallback ? bundled.lazy.filter((f) => e.fallback.test(f.path)) : [];
      const loaded = [...bundled.loaded, ...fallback];
      const lazy = bundled.lazy.filter((f) => !fallback.includes(f));
      const assetPath = e.entry && !e.fallback ? wasmAssetOf(e.entry) : null;
      const asset = assetPath ? sized(relative(root, assetPath), readFileSync(assetPath)) : null; // fetched as its own file
      const counted = [...loaded, ...(e.all ? lazy : []), ...(asset ? [asset] : [])];
      Object.assign(row, total(counted), {
        jsGzipBytes: total(counted.filter((f) => f.path.endsWith(".js"))).gzipBytes,
        wasmGzipBytes: asset?.gzip ?? null,
        lazy: e.all ? null : total(lazy),
        files: counted,
        lazyFiles: e.all ? [] : lazy,
      });
    } catch (error) {
      row.error = error.message.split("\n")[0];
    }
  }
  const runtimeRows = [];
  for (const r of runtimes) {
    const row = { id: r.id, name: r.name, entry: r.entry, how: r.how };
    runtimeRows.push(row);
    try {
      const graph = await moduleGraph(r.entry);
      const wasm = r.wasm ? sized(r.wasm, readFileSync(join(root, r.wasm))) : null;
      const js = total(graph.files);
      Object.assign(row, total([...graph.files, ...(wasm ? [wasm] : [])]), {
        modules: graph.files.length, jsRawBytes: js.rawBytes, jsGzipBytes: js.gzipBytes, wasm,
        dynamic: graph.dynamic, external: graph.external, files: graph.files.map((f) => f.path),
      });
    } catch (error) {
      row.error = error.message.split("\n")[0];
    }
  }
  return {
    bundles: rows,
    runtimes: runtimeRows,
    esbuild: versionOf("esbuild"),
    pkgSizes: JSON.parse(readFileSync(`${root}/pkg/sizes.json`, "utf8")),
  };
}
