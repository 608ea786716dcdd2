// Bundle: what a Vite production build of a page emits, and what of it the page loads.
// "retryline" is the npm tarball installed in a fresh project (lib/fresh-project.mjs), resolved by
// Vite through package.json "exports" with the "browser" condition, exactly as a user's build does.
//
// Every emitted file except index.html (and Vite's manifest) is sized: raw, gzip -9 and brotli, each
// file compressed on its own (as a server sends it). Vite's manifest says which files the page loads
// before its code runs — the entry chunk, the chunks it imports statically, their assets (the .wasm
// named by `new URL(…, import.meta.url)`) — and the rest loads only behind an `import()`:
//   * the one-call pages (one per entry) and the page that streams from the start count what they
//     load (the lazy chunks they never load are totalled apart);
//   * the every-feature page counts everything emitted: each of its calls loads what it needs.
//
// Each page is then opened in headless Chromium from a 127.0.0.1 server: its calls must answer 200,
// and the files it fetched are compared with the files counted (a counted file it never fetched, a
// lazy one it fetched, or one it fetched that was not emitted is listed).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildPage, emittedFiles, pageLibraries, serveDist, staticallyLoaded } from "./lib/pages.mjs";
import { total } from "./size.mjs";
import { versionOf } from "./lib/versions.mjs";

/** Issue 24: the page that only fetches loads at most 60 KiB gzip, JS and wasm together. */
export const BUNDLE_TARGET_GZIP_BYTES = 60 * 1024;
/** What each page must load at most, gzip, JS and wasm together (issue 24's, and issue 31's for one
 * core per page: the lean entry's one-call page and the default entry's page that streams). */
export const PAGE_TARGETS = [
  { id: "retryline", what: "the one-call page (default entry)", gzipBytes: BUNDLE_TARGET_GZIP_BYTES, issue: 24 },
  { id: "retryline-fetch", what: "the one-call page on the lean entry (`retryline/fetch`)", gzipBytes: 50 * 1024, issue: 31 },
  { id: "retryline-stream", what: "the page that streams from the start (default entry)", gzipBytes: 80 * 1024, issue: 31 },
];

/** Pages that count everything emitted (every lazy chunk is loaded by one of their calls). */
const COUNTS_ALL = new Set(["retryline-all"]);
/** The inlined bytes an entry falls back to where a bundler emits no wasm asset (browser-inline.js,
 * browser-fetch-inline.js): Vite emits one, so no page here ever loads them. */
const FALLBACK = /(^|\/)browser(-fetch)?-inline-[^/]*\.js$/;

export async function measureBundle(project, { browser, log = () => {} } = {}) {
  const rows = [];
  const exportsMap = JSON.parse(readFileSync(join(project.dir, "node_modules", "retryline", "package.json"), "utf8")).exports ?? {};
  for (const lib of pageLibraries) {
    if (lib.needsExport && !(lib.needsExport in exportsMap)) continue;
    const row = { id: lib.id, name: lib.name, source: lib.call, countsAll: COUNTS_ALL.has(lib.id) };
    rows.push(row);
    try {
      const { outDir, buildMs, warnings } = await buildPage(project.dir, lib, "call");
      const files = emittedFiles(outDir);
      const atStart = staticallyLoaded(outDir);
      const counted = (f) => atStart.has(f.path) || (row.countsAll && !FALLBACK.test(f.path));
      const loaded = files.filter(counted);
      // What is not loaded at start: the chunks behind import() a call may load, and the entry's
      // inlined bytes, which a page that has the .wasm asset never loads.
      const fallback = files.filter((f) => !counted(f) && FALLBACK.test(f.path));
      const lazy = files.filter((f) => !counted(f) && !FALLBACK.test(f.path));
      const gz = (list, filter) => list.filter(filter).reduce((s, f) => s + f.gzip, 0);
      Object.assign(row, {
        buildMs,
        warnings: warnings || undefined,
        files: loaded,
        lazyFiles: lazy,
        ...total(loaded),
        lazy: total(lazy),
        fallbackFiles: fallback,
        fallback: total(fallback),
        emitted: total(files),
        jsGzipBytes: gz(loaded, (f) => f.path.endsWith(".js")),
        wasmGzipBytes: gz(loaded, (f) => f.path.endsWith(".wasm")),
        wasmAsset: loaded.some((f) => f.path.endsWith(".wasm")),
      });
      log(`  ${lib.name}: loads ${loaded.length} files, ${(row.gzipBytes / 1024).toFixed(1)} KiB gzip` +
        (lazy.length ? `; ${lazy.length} lazy, ${(row.lazy.gzipBytes / 1024).toFixed(1)} KiB` : "") +
        (fallback.length ? `; the inlined fallback ${(row.fallback.gzipBytes / 1024).toFixed(1)} KiB, never loaded` : "") + ` (build ${(buildMs / 1000).toFixed(1)} s)`);
      if (browser) {
        const server = await serveDist(outDir);
        try {
          const { value, problems } = await browser.visit(`${server.origin}/`, () => window.__status, { timeoutMs: 20_000 });
          const fetched = new Set(server.served.map((p) => p.replace(/^\//, "")));
          row.page = {
            status: value,
            problems,
            calledServer: fetched.has("ok"),
            triedStream: fetched.has("ws"),
            notFetched: loaded.map((f) => f.path).filter((p) => !fetched.has(p)),
            lazyFetched: [...lazy, ...fallback].map((f) => f.path).filter((p) => fetched.has(p)),
            fetchedNotEmitted: [...fetched].filter((p) => p && !["ok", "fail", "ws", "index.html"].includes(p) && !files.some((f) => f.path === p)),
          };
        } catch (error) {
          row.page = { error: error.message.split("\n")[0] };
        } finally {
          await server.close();
        }
      }
    } catch (error) {
      log(`  ${lib.name}: ${error.message}`);
      row.error = error.message.split("\n").slice(0, 3).join(" ");
    }
  }
  return { vite: versionOf("vite"), chromium: browser?.version ?? null, fingerprint: project.fingerprint, targetGzipBytes: BUNDLE_TARGET_GZIP_BYTES, targets: PAGE_TARGETS, rows };
}
