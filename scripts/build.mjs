// Builds the npm package's wasm into pkg/: one module per entry (cargo, the core behind plain
// exports with the features that entry runs), wasm-opt from npm's binaryen, and an inlined copy
// of the browser's for setups that cannot serve assets.
// The build happens in a staging folder under target/ and replaces pkg/ only when complete,
// under a lock, so a concurrent build or `npm pack` never sees half a package.
// Usage: node scripts/build.mjs [--quiet]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { deflateRawSync, gzipSync, inflateRawSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { ensureToolchain } from "./bootstrap.mjs";
import { writeCommonJsTypes } from "./cjs-types.mjs";
import { trapPanics } from "./panic-trap.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const quiet = process.argv.includes("--quiet");
/** Runs a step; with --quiet its output is shown only if it fails. */
function run(cmd, args) {
  if (!quiet) return execFileSync(cmd, args, { cwd: root, stdio: "inherit" });
  try {
    execFileSync(cmd, args, { cwd: root, stdio: "pipe", encoding: "utf8" });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ""}${error.stderr ?? ""}`);
    throw error;
  }
}

/** Runs `fn` holding target/build.lock; a lock left by a dead process is taken over. */
function withLock(fn) {
  const lock = `${root}/target/build.lock`;
  mkdirSync(`${root}/target`, { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(`${lock}/pid`, String(process.pid));
      break;
    } catch {
      const owner = Number(readFileSync(`${lock}/pid`, { encoding: "utf8", flag: "a+" }) || 0);
      let alive = false;
      try {
        alive = owner > 0 && process.kill(owner, 0);
      } catch {}
      if (!alive) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`build lock held by process ${owner}`);
      else execFileSync("sleep", ["0.5"]);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The wasm of each entry: the core's exports that its runtime runs (Cargo features, src/abi). */
const FLAVOURS = [
  // The lean entry of pages (`retryline/fetch`): the fetch path and budgets of one realm.
  // Inlined too, for bundlers that emit no asset.
  { name: "browser-fetch", features: ["abi-fetch"], inline: true },
  // The default entry of pages: the whole core — budgets across tabs, keyed calls, reconciliation,
  // hedged reads, streams. Inlined for bundlers that emit no asset and `retryline/inline`; as
  // JavaScript for `retryline/csp`.
  { name: "browser", features: ["abi-tabs", "abi-hedge", "abi-reconcile", "abi-stream"], inline: true, javascript: true },
  // Pages that replay: the engine on a virtual clock alone (js/api/replay-page.js, inlined).
  { name: "replay", features: ["abi-replay"], inline: true, onlyInline: true },
  // Node and workerd: everything, with budgets leased from coordinators, replay and the worksheet.
  // Inlined too, for Node: bytes in a module load wherever the entry is bundled (Next.js server
  // renders, esbuild --platform=node) and need no file read (Deno without --allow-read).
  // CommonJS, inflated by node:zlib: one copy for Node's import (js/node.js) and require (pkg/node.cjs).
  { name: "server", features: ["abi-hedge", "abi-leases", "abi-reconcile", "abi-replay", "abi-stream", "abi-worksheet"], inline: true, node: true },
  // The budget authority: the Durable Object's for many isolates, and (inlined) each fleet process's over Redis.
  { name: "authority", features: ["abi-authority"], inline: true, node: true },
];

// The features rustc enables by default for wasm32-unknown-unknown, which wasm-opt must accept.
const WASM_FEATURES = ["bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];

function build(staging) {
  rmSync(`${root}/${staging}`, { recursive: true, force: true });
  mkdirSync(`${root}/${staging}`, { recursive: true });
  const wasmOpt = `${root}/node_modules/.bin/wasm-opt`;
  if (!existsSync(wasmOpt)) throw new Error("wasm-opt is missing: run npm install");
  const target = `${root}/target/abi`;
  for (const flavour of FLAVOURS) {
    run("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown", "--no-default-features", "--features", flavour.features.join(","), "--target-dir", target]);
    const wasmPath = `${root}/${staging}/${flavour.name}.wasm`;
    // std's panic handler becomes the trap it ends in, and what only it reached goes (scripts/panic-trap.mjs).
    const trapped = `${target}/${flavour.name}-trapped.wasm`;
    writeFileSync(trapped, trapPanics(readFileSync(`${target}/wasm32-unknown-unknown/release/retryline.wasm`)));
    // -O1, not -Oz: -Oz's output is smaller raw but larger gzipped, and gzip is what ships. The
    // passes after it were kept for what they took off the gzip of browser.wasm (1.4 KiB in all);
    // ordering functions by name puts a module's side by side, and needs the names (stripped next).
    // The target_features section only tells linkers what the code uses: no runtime reads it.
    run(wasmOpt, ["-O1", "--optimize-instructions", "--rse", "--code-folding", "--converge", "--dae-optimizing",
      "--reorder-functions-by-name", "--strip-debug", "--strip-producers", "--strip-target-features", ...WASM_FEATURES.map((f) => `--enable-${f}`),
      trapped, "-o", wasmPath]);
    rmSync(trapped);
    if (flavour.inline) {
      // `retryline/inline` gets the bytes inline: no asset URL to serve. Deflated before base64 (what
      // `npm install` brings: 57% of the module, not 133%), inflated synchronously by ./inflate.js.
      const deflated = deflateRawSync(readFileSync(wasmPath), { level: 9 });
      if (flavour.node) {
        // With its own copy of the inflater: a `require("node:zlib")` breaks where esbuild bundles it into ESM.
        esbuild.buildSync({
          stdin: { contents: inlineModule(deflated, "fflate"), resolveDir: root }, outfile: `${root}/${staging}/${flavour.name}-inline.cjs`,
          // Neutral: fflate's node build requires "module" and worker_threads, which break the same way.
          bundle: true, minify: true, format: "cjs", platform: "neutral", mainFields: ["module", "main"], legalComments: "inline", logLevel: "warning",
          banner: { js: "// Generated by scripts/build.mjs: the wasm module, deflated (raw) and base64-encoded, for Node (Bun, Deno); fflate's inflateSync (MIT) inflates it." },
          footer: { js: "0&&(module.exports={wasmBytes});" }, // the names Node's import of CommonJS reads
        });
      } else {
        writeFileSync(`${root}/${staging}/${flavour.name}-inline.js`,
          `// Generated by scripts/build.mjs: the wasm module, deflated (raw) and base64-encoded.\n${inlineModule(deflated, "./inflate.js")}`);
      }
      if (flavour.onlyInline) rmSync(wasmPath);
    }
    if (flavour.javascript) toJavaScript(wasmPath, `${root}/${staging}/${flavour.name}-js.js`);
  }
  inflater(staging);
  commonJs(staging);
  writeCommonJsTypes(`${root}/js/index.d.ts`, `${root}/${staging}/index.d.cts`);
}

// `retryline/csp`: the same module as JavaScript (binaryen's wasm2js), for pages whose CSP forbids
// compiling wasm. wasm2js cannot lower sign-extension, saturating conversions or bulk memory: the
// module is first rewritten without them (same behaviour, longer code).
function toJavaScript(wasmPath, out) {
  const lowered = wasmPath.replace(/\.wasm$/, "-lowered.wasm");
  run(`${root}/node_modules/.bin/wasm-opt`, [wasmPath, ...WASM_FEATURES.map((f) => `--enable-${f}`),
    "--signext-lowering", "--llvm-nontrapping-fptoint-lowering", "--llvm-memory-copy-fill-lowering", "-o", lowered]);
  // -Oz: a fifth smaller than -O1 minified, and smaller gzipped (what the page downloads).
  run(`${root}/node_modules/.bin/wasm2js`, [lowered, "-Oz", "-o", out]);
  rmSync(lowered);
  // wasm2js writes for reading (0.96 MB); what ships is minified (0.35 MB), its exports' names kept.
  const { code } = esbuild.transformSync(readFileSync(out, "utf8"), { minify: true, format: "esm", legalComments: "none" });
  writeFileSync(out, `// Generated by scripts/build.mjs: pkg/browser.wasm as JavaScript (binaryen's wasm2js), minified.\n${code}`);
}

/** A module whose `wasmBytes()` inflates `deflated` (base64 in its text), with `inflateSync` from `from`. */
const inlineModule = (deflated, from) =>
  `import { inflateSync } from "${from}";\n` +
  `const base64 = "${deflated.toString("base64")}";\n` +
  `export function wasmBytes() {\n` +
  `  const text = atob(base64);\n` +
  `  const bytes = new Uint8Array(text.length);\n` +
  `  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);\n` +
  `  return inflateSync(bytes);\n}\n`;

/** pkg/inflate.js: fflate's synchronous raw inflate, bundled (no dependency at install), which every
 * inlined copy shares. */
function inflater(staging) {
  // fflate builds its tables as it loads: wrapped in the first call, so that a module importing it
  // that a page never calls (replay's inline copy) leaves it out of the page (nothing runs at load).
  const { outputFiles } = esbuild.buildSync({
    stdin: { contents: 'export { inflateSync } from "fflate";', resolveDir: root }, write: false,
    bundle: true, minify: true, format: "iife", globalName: "fflate", platform: "neutral", legalComments: "inline", logLevel: "warning",
  });
  writeFileSync(`${root}/${staging}/inflate.js`,
    "// Generated by scripts/build.mjs: fflate's inflateSync (MIT, github.com/101arrowz/fflate), set up on its first call.\n" +
    `let inflate;\nexport function inflateSync(data) {\n  if (inflate === undefined) {\n${outputFiles[0].text}    inflate = fflate.inflateSync;\n  }\n  return inflate(data);\n}\n`);
}

/** The wasm an inline copy of the build carries. */
const inlined = (text) => inflateRawSync(Buffer.from(text.match(/const base64 = "([^"]*)"/)[1], "base64"));

// `require("retryline")`: each entry without top-level await bundled into one CommonJS file (its
// own copy of the shell), the node one for Node's "require" condition, the inline one for bundlers'.
const COMMON_JS = [
  { entry: "js/node.js", out: "node.cjs", platform: "node" },
  { entry: "js/inline.js", out: "inline.cjs", platform: "browser" },
];

function commonJs(staging) {
  // The entries import ../pkg/…, which must be the staging folder (swapped in as pkg/ afterwards):
  // a folder where js/ is the real one and pkg/ the staging one, its links kept as they are.
  const tree = `${root}/target/cjs-tree-${process.pid}`;
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  symlinkSync(`${root}/js`, `${tree}/js`, "dir");
  symlinkSync(`${root}/${staging}`, `${tree}/pkg`, "dir");
  try {
    for (const { entry, out, platform } of COMMON_JS) {
      esbuild.buildSync({
        entryPoints: [`${tree}/${entry}`], outfile: `${root}/${staging}/${out}`, bundle: true, format: "cjs",
        platform, target: "es2020", logLevel: "warning", legalComments: "none", preserveSymlinks: true,
        // Functions and classes keep their names for stack traces; the readable source ships as js/.
        minify: true, keepNames: true,
        // The fleet's Redis client: the user's own install (a peer dependency). The Node copies of the
        // wasm (pkg/*-inline.cjs) are required from beside the bundle, not copied into it.
        external: ["ioredis", "redis", "*-inline.cjs"],
        banner: { js: `// Generated by scripts/build.mjs from ${entry}: the same API for require().` },
      });
      const file = `${root}/${staging}/${out}`;
      writeFileSync(file, readFileSync(file, "utf8").replace(/(require|import)\("(?:\.\.\/)+pkg\/([\w-]+-inline\.cjs)"\)/g, '$1("./$2")'));
    }
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

function sizes(dir) {
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  return Object.fromEntries(FLAVOURS.map(({ name, onlyInline }) => {
    const wasm = onlyInline
      ? inlined(readFileSync(`${dir}/${name}-inline.js`, "utf8"))
      : readFileSync(`${dir}/${name}.wasm`);
    return [name, { wasm: wasm.length, wasmGzip: gz(wasm) }];
  }));
}

ensureToolchain({ browser: false });
const esbuild = await import("esbuild");
const s = withLock(() => {
  const staging = `target/pkg-staging-${process.pid}`;
  build(staging);
  const measured = sizes(`${root}/${staging}`);
  writeFileSync(`${root}/${staging}/sizes.json`, JSON.stringify(measured, null, 2) + "\n");
  // Swap the finished package in: readers see the old pkg/ or the new one, never a mix.
  const old = `${root}/target/pkg-old-${process.pid}`;
  if (existsSync(`${root}/pkg`)) renameSync(`${root}/pkg`, old);
  renameSync(`${root}/${staging}`, `${root}/pkg`);
  rmSync(old, { recursive: true, force: true });
  return measured;
});
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`retryline: ${FLAVOURS.map(({ name }) => `${name}.wasm ${kb(s[name].wasm)} (${kb(s[name].wasmGzip)} gzip)`).join(", ")}`);
