// Packaging-test helpers: build + `npm pack` the repo once per process, and install the
// tarball into a fresh project under os.tmpdir(), with no network.
//
//   const tgz = await packTarball();                       // path of retryline-<version>.tgz
//   const dir = await installFresh(undefined, ["vite"]);   // fresh project, tarball installed
//   ...; await removeDir(dir);
//
// RETRYLINE_PACK_NO_BUILD=1 packs pkg/ as it is, without `node scripts/build.mjs --quiet` first
// (for when src/ is mid-edit by someone else and does not compile; the default is to build).
//
// How the fresh project gets its packages:
// * retryline comes from the tarball: package.json says "retryline": "file:<tgz>" and
//   `npm install --offline` extracts it into <dir>/node_modules/retryline, exactly as a
//   registry install would (a real copy, not a link). The tarball has no dependencies, so
//   --offline never needs the registry or the cache.
// * Tools the project would normally have as devDependencies (vite, ...) are NOT installed
//   by npm (that would need the registry). After the install, `extraDeps` are symlinked to
//   the repo's own node_modules copies. A symlinked package resolves its own dependencies
//   from its real path (the repo's node_modules), so vite finds rolldown, lightningcss, ...
//   while the project's code still resolves "retryline" only from the fresh node_modules.
//   They are not listed in package.json, so no later npm command would try to fetch them.
// * The directory is created under os.tmpdir(), and we check that no ancestor directory
//   holds a node_modules: Node's resolution walks up, and must not find the repo's packages.
import { execFile } from "node:child_process";
import { mkdtemp, mkdir, rm, symlink, writeFile, readFile, readdir, stat } from "node:fs/promises";
import { existsSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, isAbsolute, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import { inflateRawSync } from "node:zlib";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url)).replace(/\/$/, "");
export const repoNodeModules = join(repoRoot, "node_modules");

const BUILD_TIMEOUT_MS = 240_000; // a cold build compiles the whole crate for wasm32
const NPM_TIMEOUT_MS = 120_000;

function run(cmd, args, { cwd, timeout, env } = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, timeout, env: env ?? process.env, maxBuffer: 64 * 1024 * 1024, killSignal: "SIGKILL" },
      (err, stdout, stderr) => {
        if (err) {
          const why = err.killed ? `killed after ${timeout} ms` : `exit code ${err.code}${err.signal ? `, signal ${err.signal}` : ""}`;
          const tail = (text) => (text.length > 6000 ? `…${text.slice(-6000)}` : text);
          reject(new Error(`${cmd} ${args.join(" ")} (in ${cwd}) failed (${why})\n--- stdout\n${tail(stdout)}\n--- stderr\n${tail(stderr)}`));
        } else resolve({ stdout, stderr });
      });
  });
}

// npm run from inside `npm test` would inherit npm_config_* (prefix, global, ...): drop them.
function cleanNpmEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return env;
}

// Cross-process lock so two test files (or two engineers' runs) never rebuild pkg/ at the same
// time. The lock is a directory holding the owner's pid; a lock whose owner is gone is broken.
async function withLock(name, fn, { waitMs = BUILD_TIMEOUT_MS + 60_000 } = {}) {
  const lock = join(tmpdir(), name);
  const start = Date.now();
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, "pid"), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      const owner = Number(await readFile(join(lock, "pid"), "utf8").catch(() => ""));
      const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
      if ((owner > 0 && !isAlive(owner)) || (!owner && age > 10_000)) {
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() - start > waitMs) throw new Error(`timed out after ${waitMs} ms waiting for ${lock} (held by pid ${owner})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

let packed; // Promise<{ tgz, files }>, once per process

/** Builds pkg/ and packs the repo once per process; resolves to the .tgz path. */
export function packTarball() {
  return packInfo().then((p) => p.tgz);
}

/** Same as packTarball, with npm's file list: { tgz, files: ["js/node.js", ...] }. */
export function packInfo() {
  packed ??= (async () => {
    const dest = await mkdtemp(join(tmpdir(), "retryline-pack-"));
    process.once("exit", () => rmSync(dest, { recursive: true, force: true }));
    // pkg/ is shared: someone else's `node scripts/build.mjs` replaces it (under a lock, from a
    // staging folder), so a pack taken meanwhile could still mix two builds. Check the tarball,
    // and build + pack again if it is inconsistent.
    let problem;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const result = await withLock("retryline-build.lock", async () => {
        if (process.env.RETRYLINE_PACK_NO_BUILD !== "1") {
          await run(process.execPath, ["scripts/build.mjs", "--quiet"], { cwd: repoRoot, timeout: BUILD_TIMEOUT_MS });
        } else if (!existsSync(join(repoRoot, "pkg", "server.wasm"))) {
          throw new Error("RETRYLINE_PACK_NO_BUILD=1 but pkg/ has not been built");
        }
        const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dest],
          { cwd: repoRoot, timeout: NPM_TIMEOUT_MS, env: cleanNpmEnv() });
        const [info] = JSON.parse(stdout.slice(stdout.indexOf("[")));
        const tgz = join(dest, info.filename);
        if (!existsSync(tgz)) throw new Error(`npm pack reported ${info.filename} but ${tgz} does not exist`);
        return { tgz, files: info.files.map((f) => f.path).sort() };
      });
      problem = await checkTarball(result.tgz);
      if (!problem) return result;
      console.log(`# packTarball: attempt ${attempt}: inconsistent tarball (${problem}); building and packing again`);
      await new Promise((r) => setTimeout(r, 2_000 * attempt));
    }
    throw new Error(`npm pack kept producing an inconsistent tarball: ${problem}`);
  })();
  return packed;
}

/**
 * Consistency of the packed wasm files: each entry's .wasm is valid, imports nothing (the core's
 * boundary is plain exports, src/abi) and has the result slot the glue reads; the inline copy holds
 * the browser's bytes. Resolves to null when consistent, else to a description of the problem.
 */
export async function checkTarball(tgz) {
  const out = await mkdtemp(join(tmpdir(), "retryline-check-"));
  try {
    await run("tar", ["-xzf", tgz, "-C", out], { cwd: out, timeout: 60_000 });
    const pkg = join(out, "package", "pkg");
    for (const name of ["browser", "server", "authority"]) {
      const wasm = await readFile(join(pkg, `${name}.wasm`)).catch(() => null);
      if (wasm === null) return `pkg/${name}.wasm is missing`;
      if (!WebAssembly.validate(wasm)) return `pkg/${name}.wasm (${wasm.length} bytes) is not a valid wasm module`;
      const module = new WebAssembly.Module(wasm);
      if (WebAssembly.Module.imports(module).length > 0) return `pkg/${name}.wasm imports something`;
      if (!WebAssembly.Module.exports(module).some((e) => e.name === "rl_slot")) return `pkg/${name}.wasm has no result slot`;
    }
    const inline = await readFile(join(pkg, "browser-inline.js"), "utf8");
    const base64 = inline.match(/const base64 = "([^"]*)"/)?.[1];
    if (base64 === undefined) return "pkg/browser-inline.js has no base64 string";
    if (!inflateRawSync(Buffer.from(base64, "base64")).equals(await readFile(join(pkg, "browser.wasm")))) return "pkg/browser-inline.js and pkg/browser.wasm hold different bytes";
    return null;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

function assertIsolated(dir) {
  const real = realpathSync(dir);
  const rel = relative(realpathSync(repoRoot), real);
  if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) {
    throw new Error(`fresh project ${real} is inside the repo: Node resolution would find the repo's node_modules`);
  }
  for (let d = dirname(real); ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules")) || existsSync(join(d, "package.json"))) {
      throw new Error(`an ancestor of the fresh project (${d}) has node_modules or package.json; set TMPDIR elsewhere`);
    }
    if (d === dirname(d)) break;
  }
}

/**
 * Creates a fresh project (a new temp dir under os.tmpdir() unless `dir` is given), installs
 * the packed tarball into it with npm (offline), and symlinks `extraDeps` (names of packages in
 * the repo's node_modules, e.g. ["vite"]) into its node_modules. Resolves to the project dir.
 */
export async function installFresh(dir, extraDeps = []) {
  const tgz = await packTarball();
  dir ??= await mkdtemp(join(tmpdir(), "retryline-fresh-"));
  await mkdir(dir, { recursive: true });
  assertIsolated(dir);
  await writeFile(join(dir, "package.json"), JSON.stringify({
    name: "retryline-fresh-project", version: "0.0.0", private: true, type: "module",
    dependencies: { retryline: `file:${tgz}` },
  }, null, 2) + "\n");
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
    { cwd: dir, timeout: NPM_TIMEOUT_MS, env: cleanNpmEnv() });
  const installed = join(dir, "node_modules", "retryline");
  if (!existsSync(join(installed, "package.json"))) throw new Error(`npm install did not create ${installed}`);
  for (const name of extraDeps) {
    const target = join(repoNodeModules, name);
    if (!existsSync(target)) throw new Error(`${name} is not in ${repoNodeModules}: run npm install in the repo`);
    const link = join(dir, "node_modules", ...name.split("/"));
    await mkdir(dirname(link), { recursive: true });
    await symlink(target, link, "dir");
  }
  return dir;
}

/** Lists the files of the installed package, relative to its folder (sorted). */
export async function installedFiles(dir) {
  const base = join(dir, "node_modules", "retryline");
  const out = [];
  const walk = async (d) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(relative(base, p).split(sep).join("/"));
    }
  };
  await walk(base);
  return out.sort();
}

/**
 * Imports the package as Node resolves it from the fresh project ("node" export condition), i.e.
 * js/node.js with the wasm of the same tarball. Tests compare the other runtimes with it rather
 * than with the repo's js/node.js: that one reads the repo's pkg/, which someone else's build may
 * be rewriting at that moment (and which may no longer be the build that was packed).
 */
export async function importNodeEntry(dir) {
  // require.resolve takes the "require" condition (pkg/node.cjs); import's is read from the map.
  const installed = join(dir, "node_modules", "retryline");
  const required = createRequire(join(dir, "package.json")).resolve("retryline");
  if (required !== join(installed, "pkg", "node.cjs")) throw new Error(`Node's require resolves "retryline" to ${required}`);
  const map = JSON.parse(await readFile(join(installed, "package.json"), "utf8")).exports["."].node;
  if (map.import !== "./js/node.js") throw new Error(`Node's import resolves "retryline" to ${map.import}`);
  return import(pathToFileURL(join(installed, "js", "node.js")).href);
}

/**
 * The repo's own js/node.js, imported only if the repo's pkg/ still holds exactly the files the
 * fresh project got from the tarball (else null: a later build replaced them).
 */
export async function importRepoNodeEntry(dir) {
  for (const f of ["server-inline.cjs"]) {
    const [a, b] = await Promise.all([readFile(join(repoRoot, "pkg", f)), readFile(join(dir, "node_modules", "retryline", "pkg", f))])
      .catch(() => [null, null]);
    if (!a || !a.equals(b)) return null;
  }
  return import(pathToFileURL(join(repoRoot, "js", "node.js")).href);
}

export async function removeDir(dir) {
  if (dir && dir.startsWith(tmpdir())) await rm(dir, { recursive: true, force: true });
}
