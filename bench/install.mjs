// (d′) What `npm install` brings: each package's tarball as npm packs it — packed bytes, unpacked
// bytes, files — retryline's from this tree (`npm pack --dry-run`, the files package.json ships,
// pkg/ as the last build left it) beside ky's and p-retry's as installed in node_modules. The
// target (issue 36): retryline at most 1.2 MB unpacked.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { versionOf } from "./lib/versions.mjs";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
export const INSTALL_TARGET_UNPACKED_BYTES = 1_200_000;

/** `npm pack --dry-run --json` of the package in `dir`: { packedBytes, unpackedBytes, files, largest }. */
function packed(dir) {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [report] = JSON.parse(out);
  const largest = [...report.files].sort((a, b) => b.size - a.size).slice(0, 6).map((f) => ({ path: f.path, bytes: f.size }));
  return { packedBytes: report.size, unpackedBytes: report.unpackedSize, files: report.entryCount, largest };
}

export function measureInstall() {
  const rows = [{ id: "retryline", name: "retryline", dir: root }, { id: "ky", name: "ky", dir: `${root}/node_modules/ky` }, { id: "p-retry", name: "p-retry", dir: `${root}/node_modules/p-retry` }];
  return {
    targetUnpackedBytes: INSTALL_TARGET_UNPACKED_BYTES,
    rows: rows.map(({ id, name, dir }) => {
      try {
        return { id, name, version: id === "retryline" ? versionOf("retryline") : versionOf(id), ...packed(dir) };
      } catch (error) {
        return { id, name, error: error.message.split("\n")[0] };
      }
    }),
  };
}
