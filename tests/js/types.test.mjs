// The TypeScript declarations (js/index.d.ts, js/durable-object.d.ts, and pkg/index.d.cts made from
// the first by scripts/cjs-types.mjs) compile against their documented use, strictly and with
// skipLibCheck: false, in a matrix of consumer projects: ES module and CommonJS packages under
// node16/nodenext, bundler resolution, with lib.dom, and with @types/node and no dom lib.
//
// Each project is a folder under os.tmpdir() whose node_modules/retryline is a copy of what npm
// would install of the types: package.json, the declaration files its exports name (each must be
// in "files"), and pkg/index.d.cts generated from this tree's js/index.d.ts — not taken from pkg/,
// which is build output (maybe stale, maybe being rebuilt by someone else). No build, no pack: the
// whole matrix takes a few seconds (the tsc runs are parallel). Each run lists its files, and the
// test checks which of retryline's declarations it read (index.d.cts for require, index.d.ts for
// import), so a project that quietly resolved elsewhere fails too.
//
// @types/node comes from the repo's node_modules (a devDependency), or from the node_modules
// folder named by RETRYLINE_TYPES_NODE_MODULES; without either, the @types/node projects are
// skipped — unless package.json lists @types/node, when its absence is a failure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { commonJsTypes } from "../../scripts/cjs-types.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixtures = join(root, "tests/js/fixtures");
const tsc = join(root, "node_modules/typescript/bin/tsc");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

const usage = "usage.ts";
const dom = "types/dom.ts";
const node = "types/node.ts";
const durableObject = "types/durable-object.ts";
const profiles = "types/profiles.ts";
const require_ = "types/require.cts";
const index = "js/index.d.ts";
const cjsIndex = "pkg/index.d.cts";
const doIndex = "js/durable-object.d.ts";
const profileIndexes = ["js/profiles/binance-spot.d.ts", "js/profiles/reference-api.d.ts"];

const withDom = { lib: ["ES2022", "DOM"], types: [] };  // types: [] — no @types/* from anywhere
const withNode = { lib: ["ES2022"], types: ["node"] };

// files: the fixtures compiled; reads: retryline's declaration files the program must hold, exactly.
const MATRIX = [
  { name: "ES module package, node16, lib.dom", type: "module", options: { module: "node16", ...withDom },
    files: [usage, dom, durableObject, profiles, require_], reads: [index, cjsIndex, doIndex, ...profileIndexes] },
  { name: "ES module package, nodenext, lib.dom", type: "module", options: { module: "nodenext", ...withDom },
    files: [usage, dom, durableObject, profiles, require_], reads: [index, cjsIndex, doIndex, ...profileIndexes] },
  { name: "CommonJS package, node16, lib.dom", options: { module: "node16", ...withDom },
    files: [usage, dom, require_], reads: [cjsIndex] },
  { name: "bundler resolution, lib.dom", type: "module", options: { module: "esnext", moduleResolution: "bundler", ...withDom },
    files: [usage, dom, durableObject, profiles], reads: [index, doIndex, ...profileIndexes] },
  { name: "ES module package, nodenext, @types/node, no dom lib", type: "module", options: { module: "nodenext", ...withNode },
    files: [usage, node, durableObject, profiles, require_], reads: [index, cjsIndex, doIndex, ...profileIndexes] },
  { name: "CommonJS package, nodenext, @types/node, no dom lib", options: { module: "nodenext", ...withNode },
    files: [usage, node, require_], reads: [cjsIndex] },
  // Both at once (server-side rendering, Next.js): @types/node's globals give way to lib.dom's.
  { name: "ES module package, nodenext, lib.dom and @types/node", type: "module", options: { module: "nodenext", lib: ["ES2022", "DOM"], types: ["node"] },
    files: [usage, dom, durableObject, profiles, require_], reads: [index, cjsIndex, doIndex, ...profileIndexes] },
];

/** Every "types" target of package.json's exports (and its "types" field), as paths in the package. */
function typesTargets(pkg) {
  const out = new Set(pkg.types ? [pkg.types] : []);
  const walk = (value, underTypes) => {
    if (typeof value === "string") {
      if (underTypes) out.add(value);
    } else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) walk(inner, underTypes || key === "types");
    }
  };
  walk(pkg.exports, false);
  return [...out].map((p) => p.replace(/^\.\//, "")).sort();
}

/** node_modules/retryline as installed, for the types: package.json and the declarations it names. */
function installTypes(dest) {
  for (const file of typesTargets(manifest)) {
    assert.ok(manifest.files.some((f) => f === file || (f.endsWith("/") && file.startsWith(f))),
      `package.json names ${file} as types but "files" does not ship it`);
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    if (file === cjsIndex) writeFileSync(join(dest, file), commonJsTypes(readFileSync(join(root, index), "utf8")));
    else if (file.startsWith("js/")) copyFileSync(join(root, file), join(dest, file));
    else assert.fail(`${file}: a types file that is neither in js/ nor made by scripts/cjs-types.mjs`);
  }
  copyFileSync(join(root, "package.json"), join(dest, "package.json"));
}

function typesNode() {
  const dirs = [process.env.RETRYLINE_TYPES_NODE_MODULES, join(root, "node_modules")].filter(Boolean);
  const found = dirs.map((d) => join(d, "@types/node")).find((d) => existsSync(join(d, "package.json")));
  return found ? realpathSync(found) : null;
}

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (status, signal) => (clearTimeout(timer), resolve({ status, signal, out })));
  });
}

test("the declarations compile in ESM, CommonJS and bundler projects, with lib.dom or @types/node, strict and skipLibCheck: false", { concurrency: true }, async (t) => {
  const base = mkdtempSync(join(tmpdir(), "retryline-types-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  for (let d = dirname(realpathSync(base)); d !== dirname(d); d = dirname(d)) {
    assert.ok(!existsSync(join(d, "node_modules")), `${d} has a node_modules, which the projects would resolve from; set TMPDIR elsewhere`);
  }
  const nodeTypes = typesNode();
  const nodeTypesListed = Boolean(manifest.devDependencies?.["@types/node"]);

  await Promise.all(MATRIX.map((c, i) => t.test(c.name, async (t) => {
    const dir = join(base, String(i));
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    if (c.options.types.includes("node")) {
      if (!nodeTypes) {
        assert.ok(!nodeTypesListed, "package.json lists @types/node but node_modules has none: npm install");
        t.skip("no @types/node: add it to devDependencies (or set RETRYLINE_TYPES_NODE_MODULES)");
        return;
      }
      mkdirSync(join(dir, "node_modules/@types"));
      symlinkSync(nodeTypes, join(dir, "node_modules/@types/node"), "dir");
    }
    installTypes(join(dir, "node_modules/retryline"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `types-${i}`, private: true, ...(c.type && { type: c.type }) }));
    for (const f of c.files) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      copyFileSync(join(fixtures, f), join(dir, f));
    }
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, target: "ES2022", forceConsistentCasingInFileNames: true, ...c.options },
      files: c.files,
    }));
    const { status, signal, out } = await run(["-p", dir, "--listFiles"]);
    assert.equal(status, 0, `tsc ${signal ? `killed (${signal})` : `exited ${status}`} in ${c.name}:\n${out.split("\n").filter((l) => !l.startsWith("/")).join("\n")}`);
    const reads = out.split("\n").map((l) => l.match(/node_modules\/retryline\/(.+)$/)?.[1]).filter(Boolean).sort();
    assert.deepEqual(reads, [...c.reads].sort(), `${c.name}: the retryline declarations tsc read`);
  })));
});
