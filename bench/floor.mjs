// The floor of the design's shape (issue 9): `bench/floor`, a Rust shell that drives fetch, a
// timer and an abort through web-sys and wasm-bindgen-futures with none of retryline's features
// (its three exports are described in bench/floor/src/lib.rs). Built here the way the package is
// (release, wasm-bindgen --target web, wasm-opt -O1); its per-call rows join the per-call table and
// its bytes the bundle section, so that every figure of retryline's stands beside what no shell of
// this shape can go below.
import { readFileSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { buildWasmCrate } from "../scripts/wasm-crate.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Builds the floor crate when its output is missing or older than its sources (or the core's). */
export const buildFloor = () => buildWasmCrate({ dir: "bench/floor", lib: "retryline_floor", out: `${root}/target/floor/pkg` });

let loaded;
/** The floor's exports, initialised once: { bare, withTimeout, decided }. */
export async function loadFloor() {
  if (!loaded) {
    const { glue, wasm } = buildFloor();
    const module = await import(`${glue}?${statSync(wasm).mtimeMs}`);
    module.initSync({ module: readFileSync(wasm) });
    loaded = module;
  }
  return loaded;
}

/** Its bytes as a bundler ships them: the wasm, and the glue minified by esbuild; gzip -9 each. */
export async function floorSize() {
  const { glue, wasm } = buildFloor();
  const minified = await build({ entryPoints: [glue], bundle: true, minify: true, format: "esm", platform: "browser", write: false, logLevel: "silent" });
  const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
  const wasmBytes = readFileSync(wasm);
  const glueBytes = minified.outputFiles[0].contents;
  return { wasm: wasmBytes.length, wasmGzip: gz(wasmBytes), glueMinified: glueBytes.length, glueGzip: gz(glueBytes) };
}

