// The package the way a user gets it: `npm pack` of the repo (pkg/ as it is: no build here), installed
// with `npm install --offline` into a fresh project under os.tmpdir(), with the peers and tools the
// measurements need (vite, ky, p-retry, …) symlinked from the repo's node_modules. Modelled on
// tests/js/package/pack.mjs, kept separate so that the benchmark neither builds (that helper runs
// scripts/build.mjs unless told not to) nor depends on which pkg/ files a given build ships.
//
// pkg/ is shared with other people's builds: scripts/build.mjs replaces it under target/build.lock.
// waitForPkg() waits while that lock is held, and every pack is checked (the wasm is valid, the glue
// and the files it imports provide every import of the wasm, an inlined copy — if the build makes
// one — holds the same bytes); an inconsistent pack is packed again, a few times, then given up.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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

/**
 * The build in a pkg/ directory (the repo's, or an installed package's): short hashes of the wasm and
 * the glue, and `problem` (null when consistent, else what is wrong).
 */
export function pkgFingerprint(pkgDir = join(repoRoot, "pkg")) {
  const wasmPath = join(pkgDir, "retryline_bg.wasm");
  const gluePath = join(pkgDir, "retryline.js");
  if (!existsSync(wasmPath) || !existsSync(gluePath)) return { wasm: null, glue: null, problem: `${pkgDir} has no retryline_bg.wasm or retryline.js` };
  const wasm = readFileSync(wasmPath);
  const glue = readFileSync(gluePath, "utf8");
  const out = { wasm: short(wasm), glue: short(glue), wasmBytes: wasm.length, problem: null };
  if (!WebAssembly.validate(wasm)) return { ...out, problem: `retryline_bg.wasm (${wasm.length} bytes) is not a valid module` };
  const inlinePath = join(pkgDir, "retryline_inline.js");
  if (existsSync(inlinePath)) {
    const base64 = readFileSync(inlinePath, "utf8").match(/const base64 = "([^"]*)"/)?.[1];
    if (base64 !== undefined && !Buffer.from(base64, "base64").equals(wasm)) return { ...out, problem: "retryline_inline.js and retryline_bg.wasm hold different bytes" };
  }
  // wasm-bindgen snippets ("./snippets/<crate>-<hash>/js/guard.js") ship as the package's own file
  // (js/guard.js), which the glue imports whole: their imports must be exports of that file. Any other
  // module ("./retryline_bg.js", "wbg") is provided by the glue.
  const files = new Map();
  const source = (module) => {
    const snippet = module.match(/^\.\/snippets\/[^/]+\/(.+)$/)?.[1];
    if (!snippet) return glue;
    const path = resolve(pkgDir, "..", snippet);
    if (!files.has(path)) files.set(path, existsSync(path) ? readFileSync(path, "utf8") : "");
    return files.get(path);
  };
  const provided = (i) => {
    const text = source(i.module);
    return text === glue ? glue.includes(i.name) : new RegExp(`export\\s+(async\\s+)?function\\*?\\s+${i.name}\\b|export\\s+(const|let|var)\\s+${i.name}\\b|export\\s*\\{[^}]*\\b${i.name}\\b`).test(text);
  };
  const missing = WebAssembly.Module.imports(new WebAssembly.Module(wasm)).filter((i) => !provided(i));
  if (missing.length) return { ...out, problem: `imports the wasm needs are missing (glue and wasm from different builds?): ${missing.slice(0, 3).map((i) => `${i.module}.${i.name}`).join(", ")}` };
  return out;
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
