// README.md's fenced code blocks, extracted at test time and run as modules by
// tests/js/readme.test.mjs: the block's own text, with only its package specifiers and provider
// hosts rewritten, nothing added but a comment line naming where it came from, and
// (for Node) an epilogue exporting its top-level names so the test can look at them.
//
//   const blocks = readmeBlocks(readFileSync("README.md", "utf8"));   // [{ lang, line, code }]
//   const { file } = writeBlock(dir, block, { entries, mockUrl }); // a module file to import()
//   setContext({ mockUrl });  await import(pathToFileURL(file).href);
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ccxtModule from "ccxt";

/**
 * Every fenced block of a Markdown text: its info string's first word (`lang`, "" for none), the
 * 1-based line of its opening fence (`line`; its code starts on the next), and its code. Only top-level ``` fences (the README has no
 * indented or ~~~ ones).
 */
export function readmeBlocks(markdown, file = "README.md") {
  const lines = markdown.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    assert.ok(end > i, `${file} line ${i + 1}: a code fence that is never closed`);
    blocks.push({ file, lang: open[1], line: i + 1, code: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

const IDENT = "[A-Za-z_$][\\w$]*";

/** Top-level `const|let|var|class|function` names (those at column 0), for the epilogue's export. */
export function topLevelNames(code) {
  return [...code.matchAll(new RegExp(`^(?:const|let|var|class|function\\*?|async function)\\s+(${IDENT})`, "gm"))].map((m) => m[1]);
}

// The current run's context ({ mockUrl }), set by the test before each import().
let current = null;
export function setContext(names) {
  current = names;
}
/** The current run's context; throws if a block runs outside a test's run. */
export function context() {
  assert.ok(current, "a README block ran without a context");
  return current;
}

/**
 * ccxt with its `binance` pointed at the mock exchange (`context().mockUrl`): every API base URL
 * of the instance has its host replaced, as tests/js/ccxt.test.mjs does. Everything else is
 * ccxt's own (its error classes, its error mapping, its request signing).
 */
class binance extends ccxtModule.binance {
  constructor(config) {
    super(config);
    const base = context().mockUrl;
    for (const name of Object.keys(this.urls.api)) this.urls.api[name] = this.urls.api[name].replace(/^https:\/\/[^/]+/, base);
  }
}
export const ccxt = new Proxy(ccxtModule, { get: (target, key, receiver) => (key === "binance" ? binance : Reflect.get(target, key, receiver)) });

/** The provider hosts the README's blocks name, all answered by the loopback mock exchange. */
export const PROVIDER_HOSTS = ["https://api.binance.com", "https://api.exchange.example", "https://httpbin.org"];
/** The stream hosts the README's blocks name, answered by the mock exchange's WebSocket endpoint. */
export const STREAM_HOSTS = ["wss://stream.binance.com:9443"];

/**
 * Writes `block` as <dir>/block-<file>-<line>.mjs and returns its path. The block's text is kept
 * line for line after a comment line (so line L of the file is the document's line block.line+L-1);
 * nothing is added to it, and what changes in it is only:
 *   - `from "retryline"` / `"retryline/fetch"` / `"retryline/durable-object"` / `"retryline/profiles/…"`
 *     → the repo's files (`entries`, js/profiles/);
 *   - `from "ccxt"` → a module re-exporting `ccxt` above (so its binance talks to the mock);
 *   - each of PROVIDER_HOSTS and STREAM_HOSTS → the mock's URL.
 * With `exportTopLevel`, the epilogue exports the block's top-level names.
 * Asserts that no URL but the loopback one is left in the code.
 */
export function writeBlock(dir, block, { entries, mockUrl, exportTopLevel = true }) {
  mkdirSync(dir, { recursive: true });
  const support = fileURLToPath(import.meta.url);
  const ccxtShim = join(dir, "ccxt.mjs");
  writeFileSync(ccxtShim, `export { ccxt as default } from ${JSON.stringify(support)};\n`);
  const where = `${block.file ?? "README.md"} line ${block.line}`;
  const profile = (name) => join(fileURLToPath(new URL("../../../js/", import.meta.url)), `${name.slice("retryline/".length)}.js`);
  const targets = { retryline: entries.retryline, "retryline/fetch": entries.fetch, "retryline/durable-object": entries.durableObject, ccxt: ccxtShim };
  let code = block.code.replace(/(\bfrom\s*)(["'])(retryline(?:\/durable-object|\/fetch|\/profiles\/[\w-]+)?|ccxt)\2/g, (_, from, _q, name) => {
    const target = name.startsWith("retryline/profiles/") ? profile(name) : targets[name];
    assert.ok(target, `${where}: no entry file for ${name}`);
    return `${from}${JSON.stringify(target)}`;
  });
  for (const host of PROVIDER_HOSTS) code = code.replaceAll(host, mockUrl);
  for (const host of STREAM_HOSTS) code = code.replaceAll(host, mockUrl.replace(/^http/, "ws"));
  // A provider's documentation page is named, never fetched.
  const foreign = /\b(?:https?|wss?):\/\/(?!127\.0\.0\.1[:/]|developers\.binance\.com\/)[^\s"'`]*/.exec(code);
  assert.equal(foreign, null, `${where}: a URL the harness does not point at the mock exchange: ${foreign?.[0]}`);

  // Nothing is given to the block: the first line only says where it came from.
  const prelude = `// ${block.file ?? "README.md"} line ${block.line + 1} is the next line`;
  const exported = exportTopLevel ? topLevelNames(block.code) : [];
  const epilogue = exported.length ? `\nexport { ${exported.join(", ")} };\n` : "\n";
  const file = join(dir, `block-${(block.file ?? "README.md").replace(/[^\w]+/g, "-")}-${block.line}.mjs`);
  writeFileSync(file, `${prelude.trim()}\n${code}${epilogue}`);
  return { file };
}
