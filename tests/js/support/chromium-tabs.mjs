// Real Chromium tabs of one origin that serves `page` and the package's browser entry (as the
// repository has it), beside the mock exchange: what the tab-sharing tests start and stop.
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startMockExchange } from "../mock-exchange.mjs";
import { serveStatic } from "../../../scripts/static-server.mjs";

const root = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");

/** Starts the mock exchange, a static server for `page` (and `routes`) and Chromium. */
export async function startTabs(page, routes = {}) {
  const mock = await startMockExchange({ port: 0 });
  const server = await serveStatic({ root, routes: { "/": { type: "text/html", body: page }, ...routes }, allow: (path) => path.startsWith("/js/") || path.startsWith("/pkg/") });
  const origin = `${server.origin}/`;
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  return {
    mock,
    origin,
    browser,
    /** `n` tabs of one context, each once its page says `window.ready`; `close()` closes them all. */
    async tabs(n) {
      const context = await browser.newContext();
      const pages = [];
      for (let i = 0; i < n; i++) {
        const tab = await context.newPage();
        await tab.goto(origin);
        await tab.waitForFunction(() => window.ready);
        pages.push(tab);
      }
      return { pages, close: () => context.close() };
    },
    async stop() {
      await browser.close();
      await server.close();
      await mock.close();
    },
  };
}
