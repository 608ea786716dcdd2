// README.md's fenced code blocks, extracted at test time and run as modules by
// tests/js/readme.test.mjs: the block's own text, with only its package specifiers and provider
// hosts rewritten, a one-line prelude giving it the names the README leaves to the reader, and
// (for Node) an epilogue exporting its top-level names so the test can look at them.
//
//   const blocks = readmeBlocks(readFileSync("README.md", "utf8"));   // [{ lang, line, code }]
//   const { file } = writeBlock(dir, block, { entries, mockUrl, free }); // a module file to import()
//   setContext({ client, render, … });  await import(pathToFileURL(file).href);
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

/** Names a block binds itself: imported, or declared (at any depth: conservative, see below). */
export function declaredNames(code) {
  const names = new Set();
  const list = (text) => {
    for (const part of text.split(",")) {
      const m = new RegExp(`(?:${IDENT}\\s+as\\s+)?(${IDENT})\\s*(?:=.*)?$`).exec(part.trim().replace(/^\.\.\./, ""));
      if (m) names.add(m[1]);
    }
  };
  for (const m of code.matchAll(new RegExp(`\\bimport\\s+(${IDENT})?\\s*,?\\s*(?:\\{([^}]*)\\})?\\s*(?:\\*\\s*as\\s+(${IDENT}))?\\s*from\\b`, "g"))) {
    if (m[1]) names.add(m[1]);
    if (m[2]) list(m[2]);
    if (m[3]) names.add(m[3]);
  }
  for (const m of code.matchAll(new RegExp(`\\b(?:const|let|var|class|function\\*?)\\s+(${IDENT})`, "g"))) names.add(m[1]);
  for (const m of code.matchAll(/\b(?:const|let|var)\s*\{([^}]*)\}\s*=/g)) list(m[1]);
  return names;
}

/** Top-level `const|let|var|class|function` names (those at column 0), for the epilogue's export. */
export function topLevelNames(code) {
  return [...code.matchAll(new RegExp(`^(?:const|let|var|class|function\\*?|async function)\\s+(${IDENT})`, "gm"))].map((m) => m[1]);
}

/** Whether `name` is used as a variable in `code`: not as `x.name`, not in a `//` comment. */
export function uses(code, name) {
  const bare = code.replace(/(^|\s)\/\/.*$/gm, "$1");
  return new RegExp(`(?<![.\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(bare);
}

// The free names of the current run, set by the test before each import().
let current = null;
export function setContext(names) {
  current = names;
}
/** What a block's prelude destructures; throws if a block runs outside a test's run. */
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
export const PROVIDER_HOSTS = ["https://api.binance.com", "https://api.exchange.example"];
/** The stream hosts the README's blocks name, answered by the mock exchange's WebSocket endpoint. */
export const STREAM_HOSTS = ["wss://stream.binance.com:9443"];
const RETRYLINE_NAMES = ["RetryClient", "RetryError", "Budget", "replay"];

/**
 * Writes `block` as <dir>/block-<line>.mjs and returns its path. The block's text is kept line for
 * line after a one-line prelude (so line L of the file is README line block.line+L-1);
 * what changes in it:
 *   - `from "retryline"` / `"retryline/fetch"` / `"retryline/durable-object"` → the repo's entry files (`entries`);
 *   - `from "ccxt"` → a module re-exporting `ccxt` above (so its binance talks to the mock);
 *   - each of PROVIDER_HOSTS → `mockUrl`.
 * The prelude imports, of the names in `free` (keys: names; RetryClient & co. come from the
 * entry, `ccxt` from the shim, the rest from `context()`), only those the block uses and does not
 * bind itself. With `exportTopLevel`, the epilogue exports the block's top-level names.
 * Asserts that no URL but the loopback one is left in the code.
 */
export function writeBlock(dir, block, { entries, mockUrl, free = [], exportTopLevel = true }) {
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

  const declared = declaredNames(block.code);
  const wanted = free.filter((n) => !declared.has(n) && uses(block.code, n));
  const fromEntry = wanted.filter((n) => RETRYLINE_NAMES.includes(n));
  const fromContext = wanted.filter((n) => !RETRYLINE_NAMES.includes(n) && n !== "ccxt");
  const prelude = [
    fromEntry.length ? `import { ${fromEntry.join(", ")} } from ${JSON.stringify(entries.retryline)};` : "",
    wanted.includes("ccxt") ? `import ccxt from ${JSON.stringify(ccxtShim)};` : "",
    fromContext.length ? `import { context as __readmeContext } from ${JSON.stringify(support)}; const { ${fromContext.join(", ")} } = __readmeContext();` : "",
    `// ${block.file ?? "README.md"} line ${block.line + 1} is the next line`,
  ].join(" ");
  const exported = exportTopLevel ? topLevelNames(block.code) : [];
  const epilogue = exported.length ? `\nexport { ${exported.join(", ")} };\n` : "\n";
  const file = join(dir, `block-${(block.file ?? "README.md").replace(/[^\w]+/g, "-")}-${block.line}.mjs`);
  writeFileSync(file, `${prelude.trim()}\n${code}${epilogue}`);
  return { file, provided: wanted };
}
