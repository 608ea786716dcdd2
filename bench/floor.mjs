// The floor of the package's shape (bench/README.md, "The floor"). The package is the core behind
// plain exports, driven by hand-written JavaScript (js/). What no shell of that shape goes below:
//   size      the core's fetch-path exports alone — `cargo build --release --target
//             wasm32-unknown-unknown --no-default-features --features abi-fetch`, the features of
//             the lean entry `retryline/fetch` (scripts/build.mjs FLAVOURS), then wasm-opt with the
//             passes scripts/build.mjs runs — plus the least JS that drives the call's machine
//             (bench/floor/driver.js) and loads the module, minified by esbuild; gzip -9 each file;
//   per call  that driver (a client, a budget; per call the machine begun, fed its events, its
//             effects done and its one timer armed; an AbortController per attempt) around the same
//             stub fetch as every other row.
// Built into target/floor/ (its own cargo target dir, so it neither waits for nor disturbs
// scripts/build.mjs's). When cargo fails (someone's src/ is mid-edit) an earlier floor.wasm is used
// and the results say so.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { floor } from "./floor/driver.js";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const targetDir = `${root}/target/floor`;
const built = `${targetDir}/wasm32-unknown-unknown/release/retryline.wasm`;
export const FLOOR_WASM = `${targetDir}/floor.wasm`;
export const FLOOR_FEATURES = ["abi-fetch"];
export const FLOOR_DRIVER_ONLY_WASM = `${targetDir}/floor-driver-only.wasm`;
/** The exports bench/floor/driver.js calls. */
const DRIVER_EXPORTS = ["memory", "rl_slot", "rl_input", "rl_numbers", "rl_names", "rl_client_new", "rl_budget_new", "rl_call_begin", "rl_call_event", "rl_call_poll", "rl_call_free"];
// As scripts/build.mjs: the features rustc enables by default for wasm32-unknown-unknown, and the
// passes it runs (so that floor.wasm is the lean entry's pkg/browser-fetch.wasm, built from this src/).
const WASM_FEATURES = ["bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];
const WASM_OPT = ["-O1", "--optimize-instructions", "--rse", "--code-folding", "--converge", "--dae-optimizing",
  "--reorder-functions-by-name", "--strip-debug", "--strip-producers", "--strip-target-features"];

let state = null;

/** Builds target/floor/floor.wasm (cargo decides what is stale; wasm-opt when cargo's output or this file is newer). */
export function buildFloor({ log = () => {} } = {}) {
  if (state) return state;
  let stale = null;
  try {
    execFileSync("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown", "--no-default-features", "--features", FLOOR_FEATURES.join(","), "--target-dir", targetDir],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", timeout: 300_000 });
  } catch (error) {
    const why = `${error.stderr ?? error.message}`.split("\n").filter((l) => /^error/.test(l)).slice(0, 2).join(" / ") || error.message.split("\n")[0];
    if (!existsSync(FLOOR_WASM)) throw new Error(`cargo build of the floor failed: ${why}`);
    stale = `cargo build failed (${why}); an earlier build of the floor is measured`;
    log(`  floor: ${stale}`);
  }
  const newer = (a, b) => statSync(a).mtimeMs > statSync(b).mtimeMs;
  if (!stale && (!existsSync(FLOOR_WASM) || newer(built, FLOOR_WASM) || newer(fileURLToPath(import.meta.url), FLOOR_WASM))) {
    mkdirSync(targetDir, { recursive: true });
    execFileSync(`${root}/node_modules/.bin/wasm-opt`, [...WASM_OPT, ...WASM_FEATURES.map((f) => `--enable-${f}`), built, "-o", FLOOR_WASM],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
  }
  // A second module with only the exports the driver calls (wasm-metadce, then the same passes
  // again): what the rest of the fetch-path exports (redaction, snapshots, frees) weigh.
  const graph = [{ name: "root", root: true, reaches: DRIVER_EXPORTS.map((e) => `e:${e}`) }, ...DRIVER_EXPORTS.map((e) => ({ name: `e:${e}`, export: e }))];
  writeFileSync(`${targetDir}/driver-exports.json`, JSON.stringify(graph));
  const features = WASM_FEATURES.map((f) => `--enable-${f}`);
  const run = (tool, args) => execFileSync(`${root}/node_modules/.bin/${tool}`, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
  run("wasm-metadce", [FLOOR_WASM, "--graph-file", `${targetDir}/driver-exports.json`, "-o", `${targetDir}/driver-only.dce.wasm`, ...features]);
  run("wasm-opt", [...WASM_OPT, ...features, `${targetDir}/driver-only.dce.wasm`, "-o", FLOOR_DRIVER_ONLY_WASM]);
  const bytes = readFileSync(FLOOR_WASM);
  // Whether it is the lean entry's module byte for byte (it is, unless src/ or pkg/ moved since pkg/ was built).
  const lean = `${root}/pkg/browser-fetch.wasm`;
  const sameAsLean = existsSync(lean) ? Buffer.compare(bytes, readFileSync(lean)) === 0 : null;
  state = { bytes, driverOnly: readFileSync(FLOOR_DRIVER_ONLY_WASM), stale, sameAsLean, exports: WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name).filter((n) => n.startsWith("rl_")) };
  return state;
}

/** The driver over a new instance of the floor's module (or of the one with only the driver's
 * exports): { client(options, budgetOptions, { bare }), attempt }. */
export function loadFloor({ log, driverOnly = false } = {}) {
  const built = buildFloor({ log });
  return floor(new WebAssembly.Instance(new WebAssembly.Module(driverOnly ? built.driverOnly : built.bytes), {}));
}

// What a page of the floor's shape loads: this entry (with the driver) minified, and the wasm.
const PAGE = `import { floor } from "./floor/driver.js";
const url = new URL("./floor.wasm", import.meta.url);
const { instance } = await WebAssembly.instantiateStreaming(fetch(url), {});
export const { client } = floor(instance);
`;

/** Its bytes as a page loads them: the wasm and the minified JS, each gzip -9 / brotli on its own. */
export async function floorSize({ log } = {}) {
  const { bytes: wasm, driverOnly, stale, sameAsLean, exports } = buildFloor({ log });
  const out = await build({ stdin: { contents: PAGE, resolveDir: fileURLToPath(new URL(".", import.meta.url)), sourcefile: "floor-page.js", loader: "js" },
    bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022", legalComments: "none", write: false, logLevel: "silent" });
  const js = out.outputFiles[0].contents;
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const br = (b) => brotliCompressSync(b).length;
  return {
    features: FLOOR_FEATURES,
    exports,
    stale,
    sameAsLean,
    wasm: wasm.length, wasmGzip: gz(wasm), wasmBrotli: br(wasm),
    js: js.length, jsGzip: gz(js), jsBrotli: br(js),
    gzip: gz(wasm) + gz(js), brotli: br(wasm) + br(js),
    driverOnly: { exports: DRIVER_EXPORTS.filter((e) => e !== "memory"), wasm: driverOnly.length, wasmGzip: gz(driverOnly), gzip: gz(driverOnly) + gz(js) },
  };
}
