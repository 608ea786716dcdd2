// Bundle: what a Vite production build of a page that makes one call emits — every file in dist/
// except index.html (JS chunks, the .wasm if the package ships it as an asset, anything else) —
// raw, gzip -9 and brotli, summed over the files (each is served and compressed on its own).
// "retryline" is the npm tarball installed in a fresh project (lib/fresh-project.mjs), resolved by
// Vite through package.json "exports" with the "browser" condition, exactly as a user's build does;
// whichever way the browser entry carries its wasm (base64 inlined in the JS, or a
// `new URL("….wasm", import.meta.url)` asset), what is emitted is what is counted.
//
// Each page is then opened in headless Chromium from a 127.0.0.1 server: the call must answer 200,
// and the files the page fetched are compared with the files emitted (an emitted file the page never
// fetched is dead weight; one it fetched that was not emitted would be a missing asset).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildPage, emittedFiles, pageLibraries, serveDist } from "./lib/pages.mjs";
import { versionOf } from "./lib/versions.mjs";

export const BUNDLE_TARGET_GZIP_BYTES = 60_000; // issue 9: at most 60 KB gzip, JS and wasm together

export async function measureBundle(project, { browser, log = () => {} } = {}) {
  const rows = [];
  const exportsMap = JSON.parse(readFileSync(join(project.dir, "node_modules", "retryline", "package.json"), "utf8")).exports ?? {};
  for (const lib of pageLibraries) {
    if (lib.needsExport && !(lib.needsExport in exportsMap)) continue;
    const row = { id: lib.id, name: lib.name, source: lib.call };
    rows.push(row);
    try {
      const { outDir, buildMs, warnings } = await buildPage(project.dir, lib, "call");
      const files = emittedFiles(outDir);
      const sum = (key, filter = () => true) => files.filter(filter).reduce((s, f) => s + f[key], 0);
      Object.assign(row, {
        buildMs,
        warnings: warnings || undefined,
        files,
        rawBytes: sum("bytes"),
        gzipBytes: sum("gzip"),
        brotliBytes: sum("brotli"),
        jsGzipBytes: sum("gzip", (f) => f.path.endsWith(".js")),
        wasmGzipBytes: sum("gzip", (f) => f.path.endsWith(".wasm")),
        wasmAsset: files.some((f) => f.path.endsWith(".wasm")),
      });
      log(`  ${lib.name}: ${files.length} files, ${(row.gzipBytes / 1024).toFixed(1)} KiB gzip (build ${(buildMs / 1000).toFixed(1)} s)`);
      if (browser) {
        const server = await serveDist(outDir);
        try {
          const { value, problems } = await browser.visit(`${server.origin}/`, () => window.__status, { timeoutMs: 20_000 });
          const fetched = new Set(server.served.map((p) => p.replace(/^\//, "")));
          row.page = {
            status: value,
            problems,
            calledServer: fetched.has("ok"),
            notFetched: files.map((f) => f.path).filter((p) => !fetched.has(p)),
            fetchedNotEmitted: [...fetched].filter((p) => p && p !== "ok" && p !== "index.html" && !files.some((f) => f.path === p)),
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
  return { vite: versionOf("vite"), chromium: browser?.version ?? null, fingerprint: project.fingerprint, targetGzipBytes: BUNDLE_TARGET_GZIP_BYTES, rows };
}
