// Installs what building and testing need, skipping whatever is already there:
// the Rust wasm target, wasm-bindgen-cli at the exact version Cargo.toml pins,
// wasm-pack, npm dependencies, and (for browser tests) Debian's chromium + chromedriver.
// Usage: node scripts/bootstrap.mjs [--browser]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
process.env.PATH = `${homedir()}/.cargo/bin:${process.env.PATH}`;

const say = (line) => console.error(`bootstrap: ${line}`);
const output = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
};
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: "inherit" });

/** The wasm-bindgen version Cargo.toml pins with `=`. */
export function pinnedWasmBindgen() {
  const match = readFileSync(`${root}/Cargo.toml`, "utf8").match(/^wasm-bindgen = "=([0-9.]+)"/m);
  if (!match) throw new Error("Cargo.toml must pin wasm-bindgen with =x.y.z");
  return match[1];
}

export function ensureToolchain({ browser = false } = {}) {
  if (!(output("rustup", ["target", "list", "--installed"]) ?? "").split("\n").includes("wasm32-unknown-unknown")) {
    say("adding the wasm32-unknown-unknown target");
    run("rustup", ["target", "add", "wasm32-unknown-unknown"]);
  }
  const version = pinnedWasmBindgen();
  if (output("wasm-bindgen", ["--version"]) !== `wasm-bindgen ${version}`) {
    say(`installing wasm-bindgen-cli ${version} (about 4 minutes)`);
    // Without --locked: the registry copy here lacks one locked dependency.
    run("cargo", ["install", "wasm-bindgen-cli", "--version", version, "--force"]);
  }
  if (output("wasm-pack", ["--version"]) === null) {
    say("installing wasm-pack (about 4 minutes)");
    run("cargo", ["install", "wasm-pack"]);
  }
  ensureNodeModules();
  if (browser) ensureChromium();
}

export function ensureNodeModules() {
  const lock = `${root}/package-lock.json`;
  const installed = `${root}/node_modules/.package-lock.json`;
  const fresh = existsSync(installed) && existsSync(lock) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs;
  if (!fresh) {
    say("installing npm dependencies");
    // Not `npm ci`: the registry here lacks one optional dependency of vite's, which `npm ci`
    // counts as a lock file out of sync; `npm install` skips it and keeps the locked versions.
    run("npm", ["install", "--no-audit", "--no-fund"]);
  }
}

export function ensureChromium() {
  if (existsSync("/usr/bin/chromium") && existsSync("/usr/bin/chromedriver")) return;
  say("installing Debian's chromium and chromium-driver");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (...args) => run(sudo[0] ?? "apt-get", sudo.length ? ["apt-get", ...args] : args);
  process.env.DEBIAN_FRONTEND = "noninteractive";
  try {
    apt("install", "-y", "--no-install-recommends", "chromium", "chromium-driver");
  } catch {
    apt("update");
    apt("install", "-y", "--no-install-recommends", "chromium", "chromium-driver");
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  ensureToolchain({ browser: process.argv.includes("--browser") });
}
