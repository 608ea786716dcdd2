// What the numbers were measured on: CPU, memory, OS, Node, load, and the code under test.
import os from "node:os";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

function git(args) {
  try {
    return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

export function machineInfo() {
  const cpus = os.cpus();
  const changed = git(["status", "--porcelain", "--", "src", "js", "Cargo.toml", "Cargo.lock", "scripts/build.mjs"]);
  return {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model ?? "unknown",
    cpuCount: cpus.length,
    cpuSpeedMHz: cpus.map((c) => c.speed),
    totalMemGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    loadAverageBefore: os.loadavg(),
    git: { commit: git(["rev-parse", "--short", "HEAD"]), uncommittedLibraryFiles: changed ? changed.split("\n").length : 0 },
  };
}
