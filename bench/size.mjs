// (d) Size: the bytes a browser downloads for each library. Each entry imports what a retrying
// GET needs, bundled by esbuild for the browser (ESM, minified, tree-shaken); the output's raw,
// gzip (level 9) and brotli sizes. retryline's browser entry either inlines its wasm as base64 or
// loads it as an asset (`new URL("../pkg/retryline_bg.wasm", import.meta.url)`), which esbuild leaves
// as a URL: that file's sizes are then added to the row, so the row is always JS + wasm. The inline
// entry (js/inline.js, "retryline/inline"), when the package has one, gets its own row. The files of
// pkg/ (wasm + JS glue, unminified) come from pkg/sizes.json.
import { existsSync, readFileSync } from "node:fs";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { versionOf } from "./lib/versions.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

// The .wasm a browser entry loads as an asset (null when it inlines the bytes).
function wasmAssetOf(entry) {
  const spec = readFileSync(`${root}/${entry}`, "utf8").match(/new URL\(\s*["'`]([^"'`]+\.wasm)["'`]\s*,\s*import\.meta\.url\s*\)/)?.[1];
  return spec ? fileURLToPath(new URL(spec, new URL(entry, `file://${root}/`))) : null;
}
const browserWasm = wasmAssetOf("js/browser.js");

export const entries = [
  {
    id: "retryline",
    name: browserWasm ? "retryline (browser entry + its .wasm asset)" : "retryline (browser entry, wasm inlined)",
    packages: ["retryline"],
    code: 'import { RetryClient } from "./js/browser.js"; export { RetryClient };',
    asset: browserWasm,
  },
  ...(browserWasm && existsSync(`${root}/js/inline.js`)
    ? [{ id: "retryline-inline", name: "retryline/inline (wasm inlined)", packages: ["retryline"], code: 'import { RetryClient } from "./js/inline.js"; export { RetryClient };' }]
    : []),
  { id: "p-retry", name: "p-retry", packages: ["p-retry"], code: 'export { default } from "p-retry";' },
  { id: "ky", name: "ky", packages: ["ky"], code: 'export { default } from "ky";' },
  { id: "cockatiel", name: "cockatiel (retry, handleAll, ExponentialBackoff)", packages: ["cockatiel"], code: 'export { retry, handleAll, ExponentialBackoff } from "cockatiel";' },
  { id: "exponential-backoff", name: "exponential-backoff", packages: ["exponential-backoff"], code: 'export { backOff } from "exponential-backoff";' },
  { id: "fetch-retry", name: "fetch-retry", packages: ["fetch-retry"], code: 'export { default } from "fetch-retry";' },
  { id: "axios-retry", name: "axios-retry (alone; needs axios)", packages: ["axios-retry"], code: 'export { default } from "axios-retry";' },
  { id: "axios+axios-retry", name: "axios + axios-retry", packages: ["axios", "axios-retry"], code: 'export { default as axios } from "axios"; export { default as axiosRetry } from "axios-retry";' },
];

async function bundle(code) {
  const result = await build({
    stdin: { contents: code, resolveDir: root, sourcefile: "entry.js", loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].contents;
}

const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;
const brotli = (bytes) => brotliCompressSync(bytes).length;

export async function measureSize() {
  const rows = [];
  for (const e of entries) {
    const bytes = await bundle(e.code);
    const asset = e.asset ? readFileSync(e.asset) : null; // served as its own file: compressed on its own
    rows.push({
      id: e.id,
      name: e.name,
      versions: e.packages.map((p) => `${p}@${versionOf(p)}`).join(" "),
      rawBytes: bytes.length + (asset?.length ?? 0),
      gzipBytes: gzip(bytes) + (asset ? gzip(asset) : 0),
      brotliBytes: brotli(bytes) + (asset ? brotli(asset) : 0),
      ...(asset ? { assetBytes: asset.length, assetGzipBytes: gzip(asset) } : {}),
    });
  }
  const sizes = JSON.parse(readFileSync(`${root}/pkg/sizes.json`, "utf8"));
  return {
    bundles: rows,
    esbuild: versionOf("esbuild"),
    retrylinePkg: { ...sizes, separateGzip: sizes.wasmGzip + sizes.glueGzip },
  };
}
