// `npx retryline workerd-modules`: the `modules` lines of a plain workerd config (no Wrangler),
// derived from the package as installed, so a hand-kept list cannot miss a module a new version adds.
//
// workerd resolves every specifier (bare ones too) relative to the importing module's name and has
// no package resolution. Each package file is therefore named by its path inside the package, and
// the entry under "<entry dir>/retryline": a worker named "js/worker.js" importing "retryline"
// lands on it, and the entry's own relative imports resolve to the shipped files.
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";

const STATIC_IMPORT = /(?:^|[;\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\sfrom\s*)?["']([^"']+)["']/g;
const OWN_PACKAGE = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The files of the package at `pkgDir` that workerd needs, and as what: the entry is the "workerd"
 * condition of its exports map (or `roots`, package-relative paths), the rest the graph of static
 * relative imports (".js" → esModule, ".wasm" → wasm). A missing file or a bare import throws.
 * Returns { entryPath: "js/workerd.js", entryDir: "js/", modules: Map(package-relative path → kind) }.
 */
export function workerdModules(pkgDir = OWN_PACKAGE, roots) {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const entry = manifest.exports?.["."]?.workerd;
  if (typeof entry !== "string") throw new Error(`package.json exports["."].workerd must be a path, got ${JSON.stringify(entry)}`);
  const entryPath = posix.normalize(entry);
  const entryDir = posix.dirname(entryPath) === "." ? "" : `${posix.dirname(entryPath)}/`;
  const modules = new Map();
  const visit = (rel) => {
    if (modules.has(rel)) return;
    if (!existsSync(join(pkgDir, rel))) throw new Error(`the workerd entry needs ${rel}, which is not in the package at ${pkgDir}`);
    if (rel.endsWith(".wasm")) return modules.set(rel, "wasm");
    if (!rel.endsWith(".js") && !rel.endsWith(".mjs")) throw new Error(`unexpected module type: ${rel}`);
    modules.set(rel, "esModule");
    for (const [, spec] of readFileSync(join(pkgDir, rel), "utf8").matchAll(STATIC_IMPORT)) {
      if (!spec.startsWith("./") && !spec.startsWith("../")) throw new Error(`${rel} imports ${JSON.stringify(spec)}: workerd has no package resolution`);
      visit(posix.normalize(posix.join(posix.dirname(rel), spec)));
    }
  };
  for (const root of roots ?? [entryPath]) visit(posix.normalize(root));
  return { entryPath, entryDir, modules };
}

/** The capnp lines of a walk's modules (`workerdModules`), each embedding the file from `embedDir` (where the config finds the package). */
export function capnpLines({ entryPath, entryDir, modules }, embedDir = "node_modules/retryline") {
  return [...modules].map(([rel, kind]) => {
    const name = rel === entryPath ? `${entryDir}retryline` : rel;
    return `(name = ${JSON.stringify(name)}, ${kind} = embed ${JSON.stringify(posix.join(embedDir, rel))}),`;
  });
}
