// Installs what building and testing need, skipping whatever is already there:
// the Rust wasm target, npm dependencies, (for the Rust shell's tests) wasm-bindgen-cli at the exact
// version Cargo.toml pins — its wasm-bindgen-test-runner is what `wasm-pack test` would call — (for browser tests) Debian's chromium + chromedriver, (for the
// fleet tests) Debian's redis-server, and (for the Node integration suites on other release lines)
// the Node binaries of scripts/node-lines.mjs.
// Usage: node scripts/bootstrap.mjs [--browser] [--redis] [--node-lines] [--wasm-bindgen]
//        node scripts/bootstrap.mjs wasm-bindgen   (that alone: npm test runs it beside the rest)
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { ensureNodeLines } from "./node-lines.mjs";

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
  const match = readFileSync(`${root}/Cargo.toml`, "utf8").match(/^wasm-bindgen = (?:\{ version = )?"=([0-9.]+)"/m);
  if (!match) throw new Error("Cargo.toml must pin wasm-bindgen with =x.y.z");
  return match[1];
}

/** Returns { nodeLines: [{ line, version, bin }] } (empty without nodeLines). */
export function ensureToolchain({ browser = false, redis = false, nodeLines = false, wasmBindgen = false } = {}) {
  if (!(output("rustup", ["target", "list", "--installed"]) ?? "").split("\n").includes("wasm32-unknown-unknown")) {
    say("adding the wasm32-unknown-unknown target");
    run("rustup", ["target", "add", "wasm32-unknown-unknown"]);
  }
  if (wasmBindgen) ensureWasmBindgen();
  ensureNodeModules();
  if (browser) ensureChromium();
  if (redis) ensureRedis();
  return { nodeLines: nodeLines ? ensureNodeLines() : [] };
}

/** wasm-bindgen-cli at the pinned version: its wasm-bindgen-test-runner runs the Rust shell's tests
 * (`cargo test --target wasm32-unknown-unknown`, as `wasm-pack test` does, without building wasm-pack). */
export function ensureWasmBindgen() {
  const version = pinnedWasmBindgen();
  if (output("wasm-bindgen-test-runner", ["--version"]) === `wasm-bindgen-test-runner ${version}`) return;
  say(`installing wasm-bindgen-cli ${version} (about 4 minutes)`);
  // Without --locked: the registry copy here lacks one locked dependency.
  run("cargo", ["install", "wasm-bindgen-cli", "--version", version, "--force"]);
}

export function ensureNodeModules() {
  const lock = `${root}/package-lock.json`;
  const installed = `${root}/node_modules/.package-lock.json`;
  const fresh = existsSync(installed) && existsSync(lock) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs;
  if (!fresh) {
    say("installing npm dependencies (npm ci: exactly the lock file, which it never rewrites)");
    // `npm install` would rewrite package-lock.json whenever it disagrees with package.json
    // (it once lacked vite's win32-only optional dependency); `npm ci` fails instead, so a
    // stale lock file is fixed once, in a commit, rather than on every fresh clone.
    run("npm", ["ci", "--no-audit", "--no-fund"]);
  }
}

/** Debian packages by the files they install: apt-get only when one is missing. */
function ensureDebian(files, packages) {
  if (files.every((f) => existsSync(f))) return;
  say(`installing Debian's ${packages.join(" and ")}`);
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (...args) => run(sudo[0] ?? "apt-get", sudo.length ? ["apt-get", ...args] : args);
  process.env.DEBIAN_FRONTEND = "noninteractive";
  try {
    apt("install", "-y", "--no-install-recommends", ...packages);
  } catch {
    apt("update");
    apt("install", "-y", "--no-install-recommends", ...packages);
  }
}

export const ensureChromium = () => ensureDebian(["/usr/bin/chromium", "/usr/bin/chromedriver"], ["chromium", "chromium-driver"]);

/** The fleet tests start their own redis-server on a loopback port (the package's daemon is not used). */
export const ensureRedis = () => ensureDebian(["/usr/bin/redis-server", "/usr/bin/redis-cli"], ["redis-server"]);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = (name) => process.argv.includes(`--${name}`);
  if (process.argv[2] === "wasm-bindgen") ensureWasmBindgen();
  else ensureToolchain({ browser: flag("browser"), redis: flag("redis"), nodeLines: flag("node-lines"), wasmBindgen: flag("wasm-bindgen") });
}
