// npm run fuzz: the long run of tests/fuzz.rs, the property tests of the core's parsers and of
// the replay engine, with enough cases that all properties together generate at least 10⁶
// (npm test runs the same file with RETRYLINE_FUZZ_CASES unset: a few hundred cases each).
//
// It builds optimized but keeps overflow checks and debug assertions on (an overflow must fail
// here as it would in a debug `cargo test`), in its own target directory (target/fuzz) so that
// it neither waits for nor invalidates other builds, and runs one test thread by default: the
// build machines are shared 2-core ones.
// Usage: node scripts/fuzz.mjs [--total N] [--cases N per property] [--threads N]
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} needs a whole number above 0`);
  return value;
}

const total = option("total", 1_000_000);
const threads = option("threads", 1);
const env = {
  ...process.env,
  PATH: `${homedir()}/.cargo/bin:${process.env.PATH}`,
  CARGO_TARGET_DIR: `${root}target/fuzz`,
  CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS: "true",
  CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS: "true",
  // The package's release profile optimizes the wasm for size with LTO; the fuzzer wants speed.
  CARGO_PROFILE_RELEASE_OPT_LEVEL: "3",
  CARGO_PROFILE_RELEASE_LTO: "false",
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "16",
};
const cargo = ["test", "--release", "--test", "fuzz", "--jobs", String(threads)];
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);

// Build, and list the properties (the tests of the `properties` module) to share the total out.
const built = Date.now();
const list = spawnSync("cargo", [...cargo, "--", "--list", "properties::"], {
  cwd: root,
  env,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
});
if (list.status !== 0) {
  process.stdout.write(list.stdout ?? "");
  console.error("fuzz: the build failed");
  process.exit(list.status ?? 1);
}
const properties = list.stdout
  .split("\n")
  .filter((line) => line.endsWith(": test"))
  .map((line) => line.slice(0, -": test".length));
if (properties.length === 0) throw new Error("tests/fuzz.rs has no properties::* tests");
const cases = option("cases", Math.ceil(total / properties.length));
const sum = (cases * properties.length).toLocaleString("en");
console.log(`fuzz: built in ${seconds(built)} s; ${properties.length} properties × ${cases.toLocaleString("en")} cases = ${sum} cases`);

const started = Date.now();
const run = spawnSync("cargo", [...cargo, "--", "properties::", `--test-threads=${threads}`], {
  cwd: root,
  env: { ...env, RETRYLINE_FUZZ_CASES: String(cases) },
  stdio: "inherit",
});
const ok = run.status === 0;
console.log(`fuzz: ${ok ? "passed" : "FAILED"}: ${sum} generated cases in ${seconds(started)} s (${threads} test thread${threads > 1 ? "s" : ""})`);
process.exit(ok ? 0 : 1);
