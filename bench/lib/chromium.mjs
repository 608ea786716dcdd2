// Headless Chromium (Debian's /usr/bin/chromium) through playwright-core, for the bundle and
// cold-start sections. Every page runs in a new browser context (an empty cache and its own
// renderer); everything it loads comes from 127.0.0.1. Every step has a time limit.
import { chromium } from "playwright-core";
import { timeLimit } from "./time-limit.mjs";

export const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
  "--disable-extensions"];

export async function launchChromium() {
  const browser = await timeLimit(chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 }), 40_000, "chromium.launch");
  return {
    browser,
    version: browser.version(),
    /**
     * Opens url in a new context (with the CPU slowed down `cpuThrottle` times through CDP
     * Emulation.setCPUThrottlingRate, set before navigation), waits until `ready` (a page function)
     * returns something, and resolves to that; the context is closed afterwards.
     */
    async visit(url, ready, { cpuThrottle = 1, timeoutMs = 30_000 } = {}) {
      const context = await timeLimit(browser.newContext(), 10_000, "newContext");
      const problems = [];
      try {
        const page = await context.newPage();
        page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
        if (cpuThrottle !== 1) {
          const cdp = await context.newCDPSession(page);
          await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpuThrottle });
        }
        await timeLimit(page.goto(url, { waitUntil: "load", timeout: timeoutMs }), timeoutMs + 1000, `goto ${url}`);
        const handle = await timeLimit(page.waitForFunction(ready, undefined, { timeout: timeoutMs }), timeoutMs + 1000, `waiting on ${url}`);
        return { value: await handle.jsonValue(), problems };
      } catch (error) {
        error.message += problems.length ? ` (${problems.join("; ")})` : "";
        throw error;
      } finally {
        await timeLimit(context.close(), 10_000, "context.close").catch(() => {});
      }
    },
    close: () => timeLimit(browser.close(), 15_000, "browser.close").catch(() => {}),
  };
}
