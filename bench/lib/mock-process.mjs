// The mock exchange in its own process (server-side timestamps must not share an event loop
// with the clients under test), driven through its /__mock/ control routes.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("./mock-child.mjs", import.meta.url));
const running = new Set();
// Last resort if the benchmark exits without close(): no mock outlives it.
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export async function startMockProcess() {
  const child = spawn(process.execPath, [entry], { stdio: ["pipe", "pipe", "inherit"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  const exited = () => child.exitCode !== null || child.signalCode !== null;

  let url;
  try {
    url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the mock exchange did not start in 10 s")), 10_000);
      createInterface({ input: child.stdout }).once("line", (line) => (clearTimeout(timer), resolve(JSON.parse(line).url)));
      child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`the mock exchange exited with ${code}`))));
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }

  async function control(method, path, body) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`mock ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  return {
    url,
    /** Queues behaviours for a path (see tests/js/mock-exchange.mjs); unscripted requests get 200. */
    script: (path, behaviours) => control("POST", "/__mock/script", { path, behaviours }),
    /** Server-side log entries for a path: seq, method, receivedAtMs, respondedAtMs, status… */
    requests: (path) => control("GET", `/__mock/requests?path=${encodeURIComponent(path)}`),
    /** Clears the log and the scripts. */
    reset: () => control("POST", "/__mock/reset"),
    async close() {
      if (exited()) return;
      const done = once(child, "exit");
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await done;
      clearTimeout(force);
    },
  };
}

/** Runs fn(mock) with a fresh mock process, stopped afterwards even if fn throws. */
export async function withMockProcess(fn) {
  const mock = await startMockProcess();
  try {
    return await fn(mock);
  } finally {
    await mock.close();
  }
}
