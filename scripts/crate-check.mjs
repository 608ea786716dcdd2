// The crate as `cargo publish` would upload it: its file list holds what the crate needs and none
// of the npm package, the tests, the benches or the demo, and `cargo publish --dry-run` packages it,
// builds it from the package alone and stops before the upload. Run by npm test (scripts/test.mjs).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cargo = (args) => execFileSync("cargo", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 24 });

// --allow-dirty: a test run's own files (pkg/, target/) are ignored, but an uncommitted edit must not fail the check.
const files = cargo(["package", "--list", "--allow-dirty", "--quiet"]).split("\n").filter(Boolean);
const allowed = /^(src\/.*\.(rs|js)|js\/platform\/tab-locks\.js|Cargo\.toml(\.orig)?|Cargo\.lock|README\.crate\.md|LICENSE-(MIT|APACHE)|\.cargo_vcs_info\.json)$/;
const stray = files.filter((f) => !allowed.test(f));
if (stray.length > 0) throw new Error(`the crate would ship files it does not need: ${stray.slice(0, 10).join(", ")}${stray.length > 10 ? ", …" : ""}`);
for (const needed of ["README.crate.md", "src/lib.rs", "js/platform/tab-locks.js", "src/web/platform/shell.js"]) {
  if (!files.includes(needed)) throw new Error(`the crate would lack ${needed}`);
}
console.log(`cargo package: ${files.length} files`);
const dry = execFileSync("cargo", ["publish", "--dry-run", "--allow-dirty"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
console.log(dry);
console.log("cargo publish --dry-run: packaged, built from the package, upload skipped");
