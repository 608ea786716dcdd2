// The shells' layout shows their architecture, and stays that way: in js/ and in src/web/, imports
// only go down the layers, no module imports itself round a circle, and no file in src/ or js/ is
// over 400 lines. Imports are read from the sources (static, re-exports and import()).
//   js/:      cli → entries (js/*.js) → profiles → api → executor → core → platform
//   src/web/: mod.rs → api → executor → platform   (and the core never imports a shell)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const files = (dir, ext) => readdirSync(join(root, dir)).flatMap((name) => {
  const path = posix.join(dir, name);
  if (statSync(join(root, path)).isDirectory()) return files(path, ext);
  return path.endsWith(ext) ? [path] : [];
});

/** A cycle in `graph` (Map of node → Set of nodes), as a list of nodes, or null. */
function cycle(graph) {
  const state = new Map(); // node → "open" | "done"
  const path = [];
  const visit = (node) => {
    if (state.get(node) === "done") return null;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of graph.keys()) {
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

const IMPORT = /(?:^|[;\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\sfrom\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function jsGraph() {
  const graph = new Map();
  for (const file of files("js", ".js")) {
    const deps = new Set();
    for (const [, a, b] of readFileSync(join(root, file), "utf8").matchAll(IMPORT)) {
      const spec = a ?? b;
      if (!spec.startsWith(".")) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), spec));
      if (target.startsWith("js/")) deps.add(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

// cli (npx retryline) sits on the entries; profiles are data (they import nothing).
const JS_LAYERS = ["cli", "entries", "profiles", "api", "executor", "core", "platform"];
const jsLayer = (file) => (file.split("/").length === 2 ? "entries" : file.split("/")[1]);

test("js/: imports go only down the layers (entries → api → executor → core → platform), and round no circle", () => {
  const graph = jsGraph();
  const upward = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      if (JS_LAYERS.indexOf(jsLayer(dep)) < JS_LAYERS.indexOf(jsLayer(file))) upward.push(`${file} → ${dep}`);
    }
  }
  assert.deepEqual(upward, [], "imports from a lower layer up into a higher one");
  for (const file of graph.keys()) assert.ok(JS_LAYERS.includes(jsLayer(file)), `${file} is in no layer`);
  assert.equal(cycle(graph)?.join(" → ") ?? null, null);
});

/** src/web's modules (file paths) and what each uses of the others, from its `use` lines. */
function webGraph() {
  const modules = files("src/web", ".rs");
  const moduleOf = (path) => path.replace(/\/mod\.rs$/, "").replace(/\.rs$/, "");
  const known = new Set(modules.map(moduleOf));
  const graph = new Map();
  for (const file of modules) {
    const self = moduleOf(file);
    const deps = new Set();
    const text = readFileSync(join(root, file), "utf8").replace(/\/\/.*$/gm, "");
    for (const [, path] of text.matchAll(/\buse\s+((?:super|crate)::[\w:]+)/g)) {
      let parts = path.split("::");
      let base = self;
      if (parts[0] === "crate") base = "src", parts = parts.slice(1);
      else while (parts[0] === "super") base = posix.dirname(base), parts = parts.slice(1);
      // The longest known module the path names.
      for (let n = parts.length; n > 0; n--) {
        const target = posix.join(base, ...parts.slice(0, n));
        if (known.has(target) && target !== self) {
          deps.add(target);
          break;
        }
      }
    }
    graph.set(self, deps);
  }
  return graph;
}

// executor/ carries out the core's machines (a call's, a stream's session); platform/ binds JavaScript.
const WEB_LAYERS = ["src/web", "src/web/api", "src/web/executor", "src/web/platform"];
const webLayer = (module) => WEB_LAYERS.filter((l) => module === l || module.startsWith(`${l}/`)).at(-1);

test("src/web/: imports go only down the layers (mod.rs → api → executor → platform), and round no circle", () => {
  const graph = webGraph();
  const upward = [];
  for (const [module, deps] of graph) {
    for (const dep of deps) {
      if (WEB_LAYERS.indexOf(webLayer(dep)) < WEB_LAYERS.indexOf(webLayer(module))) upward.push(`${module} → ${dep}`);
    }
  }
  assert.deepEqual(upward, [], "imports from a lower layer up into a higher one");
  assert.equal(cycle(graph)?.join(" → ") ?? null, null);
});

test("the core imports neither shell", () => {
  const shells = [];
  for (const file of files("src", ".rs")) {
    if (file.startsWith("src/web/") || file.startsWith("src/abi/")) continue;
    const text = readFileSync(join(root, file), "utf8").replace(/\/\/.*$/gm, "");
    if (/\b(?:crate|super)::(?:web|abi)\b/.test(text)) shells.push(file);
  }
  assert.deepEqual(shells, []);
});

test("no file in src/ or js/ is over 400 lines: one idea a file", () => {
  const long = [...files("src", ".rs"), ...files("src", ".js"), ...files("js", ".js")]
    .map((file) => [file, readFileSync(join(root, file), "utf8").split("\n").length - 1])
    .filter(([, lines]) => lines > 400)
    .map(([file, lines]) => `${file} (${lines})`);
  assert.deepEqual(long, []);
});

export { dirname, relative, webGraph, jsGraph };
