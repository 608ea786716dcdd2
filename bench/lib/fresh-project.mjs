// The package the way a user gets it: `npm pack` of the repo (pkg/ as it is: no build here), installed
// with `npm install --offline` into a fresh project under os.tmpdir(), with the peers and tools the
// measurements need (vite, ky, p-retry, …) symlinked from the repo's node_modules. Modelled on
// tests/js/package/pack.mjs, kept separate so that the benchmark neither builds (that helper runs
// scripts/build.mjs unless told not to) nor depends on which pkg/ files a given build ships.
//
// pkg/ is shared with other people's builds: scripts/build.mjs replaces it under target/build.lock.
// waitForPkg() waits while that lock is held, and every pack is checked (each wasm module is valid,
// imports nothing and exports rl_slot; the inlined browser module holds browser.wasm's bytes); an
// inconsistent pack is packed again, a few times, then given up.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function run(cmd, args, { cwd, timeout }) {
  // npm run bench passes npm_config_* (prefix, global, …) down: the fresh project must not see them.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return new Promise((resolvePromise, reject) => {
    execFile(cmd, args, { cwd, timeout, env, maxBuffer: 64 * 1024 * 1024, killSignal: "SIGKILL" }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(" ")} failed (${err.killed ? `killed after ${timeout} ms` : `exit ${err.code}`}): ${stderr.slice(-2000)}`));
      else resolvePromise(stdout);
    });
  });
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** Waits (at most maxWaitMs) while someone's scripts/build.mjs holds target/build.lock. Returns the ms waited. */
export async function waitForBuildLock({ maxWaitMs = 180_000, log = () => {} } = {}) {
  const lock = join(repoRoot, "target", "build.lock");
  const started = Date.now();
  let said = false;
  for (;;) {
    if (!existsSync(lock)) return Date.now() - started;
    let owner = 0;
    try {
      owner = Number(readFileSync(join(lock, "pid"), "utf8")) || 0;
    } catch {}
    if (owner && !isAlive(owner)) return Date.now() - started; // a stale lock: its owner is gone
    if (Date.now() - started > maxWaitMs) throw new Error(`pkg/ is being rebuilt (target/build.lock held by ${owner}) for over ${maxWaitMs} ms`);
    if (!said) (log(`bench: pkg/ is being rebuilt by process ${owner}; waiting`), (said = true));
    await sleep(500);
  }
}

const short = (bytes) => createHash("sha256").update(bytes).digest("hex").slice(0, 12);

/** The wasm modules of pkg/ (scripts/build.mjs FLAVOURS): as files, or only inlined as base64. */
export const PKG_WASM = [
  { name: "browser-fetch", file: "browser-fetch.wasm" },
  { name: "browser", file: "browser.wasm", inline: "browser-inline.js" },
  { name: "replay", inline: "replay-inline.js" },
  { name: "server", file: "server.wasm" },
  { name: "authority", file: "authority.wasm" },
];

/** The bytes a `<flavour>-inline.js` of scripts/build.mjs carries (deflated), or null when it has none. */
export function inlinedWasm(path) {
  const base64 = readFileSync(path, "utf8").match(/const base64 = "([^"]*)"/)?.[1];
  return base64 === undefined ? null : inflateRawSync(Buffer.from(base64, "base64"));
}

/** What is wrong with one of the core's modules (null: nothing): it must be valid, import nothing
 * (the JS shell gives it no imports object) and export its result slot. */
function wasmProblem(name, bytes) {
  if (!WebAssembly.validate(bytes)) return `${name} (${bytes.length} bytes) is not a valid module`;
  const module = new WebAssembly.Module(bytes);
  const imports = WebAssembly.Module.imports(module);
  if (imports.length) return `${name} imports ${imports.slice(0, 3).map((i) => `${i.module}.${i.name}`).join(", ")} (the core's modules import nothing: an old or foreign build?)`;
  if (!WebAssembly.Module.exports(module).some((e) => e.name === "rl_slot")) return `${name} has no export rl_slot (not the core behind plain exports?)`;
  return null;
}

/** The package's JavaScript next to a pkg/ directory: the .js files that package.json "files" ships
 * under js/ (the same list in the repo and in an installed package), path-sorted. */
function shippedJs(pkgDir) {
  const top = resolve(pkgDir, "..");
  let files = [];
  try {
    files = JSON.parse(readFileSync(join(top, "package.json"), "utf8")).files ?? [];
  } catch {}
  const out = [];
  const walk = (rel) => {
    const path = join(top, rel);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) for (const name of readdirSync(path).sort()) walk(`${rel.replace(/\/$/, "")}/${name}`);
    else if (rel.endsWith(".js")) out.push(rel);
  };
  for (const f of files.filter((f) => f.startsWith("js/"))) walk(f);
  return [...new Set(out)].sort();
}

/**
 * The build in a pkg/ directory (the repo's, or an installed package's): a short hash of its wasm
 * modules together (`wasm`), one of the package's JavaScript (`glue`: js/, which others edit too),
 * each module's bytes, and `problem` (null when consistent, else what is wrong). Consistent: every
 * module of PKG_WASM is there, valid, imports nothing and exports rl_slot, and browser-inline.js
 * holds exactly browser.wasm's bytes.
 */
export function pkgFingerprint(pkgDir = join(repoRoot, "pkg")) {
  const hash = createHash("sha256");
  const wasmBytes = {};
  const fail = (problem) => ({ wasm: null, glue: null, wasmBytes, problem });
  for (const m of PKG_WASM) {
    const filePath = m.file && join(pkgDir, m.file);
    const inlinePath = m.inline && join(pkgDir, m.inline);
    if (filePath && !existsSync(filePath)) return fail(`${pkgDir} has no ${m.file}`);
    if (inlinePath && !existsSync(inlinePath)) return fail(`${pkgDir} has no ${m.inline}`);
    const file = filePath ? readFileSync(filePath) : null;
    const inlined = inlinePath ? inlinedWasm(inlinePath) : null;
    if (inlinePath && inlined === null) return fail(`${m.inline} holds no base64 module`);
    if (file && inlined && !inlined.equals(file)) return fail(`${m.inline} and ${m.file} hold different bytes (from different builds?)`);
    const bytes = file ?? inlined;
    const problem = wasmProblem(m.file ?? m.inline, bytes);
    if (problem) return fail(problem);
    wasmBytes[m.name] = bytes.length;
    hash.update(`${m.name}:${short(bytes)};`);
  }
  const glue = createHash("sha256");
  const top = resolve(pkgDir, "..");
  for (const rel of shippedJs(pkgDir)) glue.update(`${rel}\0`).update(readFileSync(join(top, rel))).update("\0");
  return { wasm: hash.digest("hex").slice(0, 12), glue: glue.digest("hex").slice(0, 12), wasmBytes, problem: null };
}

/** Waits for the build lock, then for a consistent pkg/ (re-checked a few times). Returns the fingerprint. */
export async function waitForPkg({ log = () => {}, attempts = 5 } = {}) {
  let fp;
  for (let i = 1; i <= attempts; i++) {
    await waitForBuildLock({ log });
    fp = pkgFingerprint();
    if (!fp.problem) return fp;
    log(`bench: pkg/ is not consistent (${fp.problem}); waiting and checking again`);
    await sleep(2_000 * i);
  }
  throw new Error(`pkg/ stayed inconsistent: ${fp.problem}`);
}

/**
 * Packs the repo and installs the tarball into a fresh project; `extraDeps` are symlinked from the
 * repo's node_modules (a symlinked package resolves its own dependencies from the repo). Resolves to
 * { dir, fingerprint, close() }: the project folder, the installed build's fingerprint, and removal.
 */
export async function freshProject({ extraDeps = [], log = () => {} } = {}) {
  const packDir = await mkdtemp(join(tmpdir(), "retryline-bench-pack-"));
  const dir = await mkdtemp(join(tmpdir(), "retryline-bench-project-"));
  const close = () => {
    rmSync(packDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", close);
  try {
    // Node's resolution walks up from the project: no ancestor may hold a node_modules or package.json.
    for (let d = dirname(realpathSync(dir)); d !== dirname(d); d = dirname(d)) {
      if (existsSync(join(d, "node_modules")) || existsSync(join(d, "package.json"))) throw new Error(`${d} has node_modules or package.json; set TMPDIR elsewhere`);
    }
    let fingerprint;
    for (let attempt = 1; ; attempt++) {
      await waitForBuildLock({ log });
      const stdout = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir], { cwd: repoRoot, timeout: 120_000 });
      const [info] = JSON.parse(stdout.slice(stdout.indexOf("[")));
      const tgz = join(packDir, info.filename);
      await rm(join(dir, "node_modules"), { recursive: true, force: true });
      await writeFile(join(dir, "package.json"), JSON.stringify({
        name: "retryline-bench-project", version: "0.0.0", private: true, type: "module", dependencies: { retryline: `file:${tgz}` },
      }, null, 2) + "\n");
      await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: dir, timeout: 120_000 });
      fingerprint = pkgFingerprint(join(dir, "node_modules", "retryline", "pkg"));
      if (!fingerprint.problem) break;
      if (attempt === 3) throw new Error(`npm pack kept producing an inconsistent package: ${fingerprint.problem}`);
      log(`bench: packed package inconsistent (${fingerprint.problem}); packing again`);
      await sleep(3_000 * attempt);
    }
    for (const name of extraDeps) {
      const target = join(repoRoot, "node_modules", name);
      if (!statSync(target, { throwIfNoEntry: false })) throw new Error(`${name} is not in the repo's node_modules: run npm install`);
      const link = join(dir, "node_modules", ...name.split("/"));
      await mkdir(dirname(link), { recursive: true });
      await symlink(target, link, "dir");
    }
    return { dir, fingerprint, close };
  } catch (error) {
    close();
    throw error;
  }
}
