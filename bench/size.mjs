// (d) Size: the bytes a browser downloads for each library. Each entry imports what a retrying
// GET needs, bundled by esbuild for the browser (ESM, minified, tree-shaken); the output's raw,
// gzip (level 9) and brotli sizes. retryline's browser entry inlines its wasm as base64; the
// files a bundler could serve separately (wasm + JS glue) come from pkg/sizes.json.
import { readFileSync } from "node:fs";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { versionOf } from "./lib/versions.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

export const entries = [
  { id: "retryline", name: "retryline (browser entry, wasm inlined)", packages: ["retryline"], code: 'import { RetryClient } from "./js/browser.js"; export { RetryClient };' },
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
    rows.push({
      id: e.id,
      name: e.name,
      versions: e.packages.map((p) => `${p}@${versionOf(p)}`).join(" "),
      rawBytes: bytes.length,
      gzipBytes: gzip(bytes),
      brotliBytes: brotli(bytes),
    });
  }
  const sizes = JSON.parse(readFileSync(`${root}/pkg/sizes.json`, "utf8"));
  return {
    bundles: rows,
    esbuild: versionOf("esbuild"),
    retrylinePkg: { ...sizes, separateGzip: sizes.wasmGzip + sizes.glueGzip },
  };
}
