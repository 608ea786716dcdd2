// Installed versions of the npm packages under comparison.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export function versionOf(name) {
  if (name === "retryline") return JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
  // Some packages' "exports" hide package.json: find it from the resolved entry instead.
  const paths = require.resolve.paths(name) ?? [];
  for (const dir of paths) {
    try {
      return JSON.parse(readFileSync(`${dir}/${name}/package.json`, "utf8")).version;
    } catch {}
  }
  return "not installed";
}
