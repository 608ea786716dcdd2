// The floor of the design's shape (issue 9): `bench/floor`, a Rust shell that drives fetch, a
// timer and an abort through web-sys and wasm-bindgen-futures with none of retryline's features
// (its three exports are described in bench/floor/src/lib.rs). Built here the way the package is
// (release, wasm-bindgen --target web, wasm-opt -O1); its per-call rows join the per-call table and
// its bytes the bundle section, so that every figure of retryline's stands beside what no shell of
// this shape can go below.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const target = `${root}/target/floor`;
const out = `${target}/pkg`;
const wasm = `${out}/retryline_floor_bg.wasm`;
const glue = `${out}/retryline_floor.js`;
// The features rustc enables by default for wasm32-unknown-unknown (as scripts/build.mjs).
const features = ["bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];

const newest = (path) => {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...execFileSync("find", [path, "-type", "f"], { encoding: "utf8" }).trim().split("\n").map((f) => statSync(f).mtimeMs));
};

/** Builds the floor crate when its output is missing or older than its sources (or the core's). */
export function buildFloor() {
  const builtAt = statSync(wasm, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const changedAt = Math.max(newest(`${root}/bench/floor`), newest(`${root}/src`), newest(`${root}/Cargo.toml`));
  if (builtAt >= changedAt) return;
  const quiet = { cwd: `${root}/bench/floor`, stdio: ["ignore", process.stderr, process.stderr], env: { ...process.env, CARGO_TARGET_DIR: target } };
  execFileSync("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown"], quiet);
  execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", out, `${target}/wasm32-unknown-unknown/release/retryline_floor.wasm`], quiet);
  execFileSync(`${root}/node_modules/.bin/wasm-opt`, ["-O1", ...features.map((f) => `--enable-${f}`), wasm, "-o", wasm], quiet);
}

let loaded;
/** The floor's exports, initialised once: { bare, withTimeout, decided }. */
export async function loadFloor() {
  if (!loaded) {
    buildFloor();
    const module = await import(`${glue}?${statSync(wasm).mtimeMs}`);
    module.initSync({ module: readFileSync(wasm) });
    loaded = module;
  }
  return loaded;
}

/** Its bytes as a bundler ships them: the wasm, and the glue minified by esbuild; gzip -9 each. */
export async function floorSize() {
  buildFloor();
  const minified = await build({ entryPoints: [glue], bundle: true, minify: true, format: "esm", platform: "browser", write: false, logLevel: "silent" });
  const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
  const wasmBytes = readFileSync(wasm);
  const glueBytes = minified.outputFiles[0].contents;
  return { wasm: wasmBytes.length, wasmGzip: gz(wasmBytes), glueMinified: glueBytes.length, glueGzip: gz(glueBytes) };
}

export const floorBuilt = () => existsSync(wasm);
