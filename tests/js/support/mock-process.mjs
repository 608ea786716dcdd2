// The mock exchange in its own process, for tests whose server-side timestamps must not
// share an event loop with the clients under test.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../mock-exchange.mjs", import.meta.url));

export async function startMockProcess() {
  const child = spawn(process.execPath, [script, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the mock exchange did not start in 10 s")), 10_000);
    createInterface({ input: child.stdout }).once("line", (l) => (clearTimeout(timer), resolve(l)));
    child.once("exit", (code) => reject(new Error(`the mock exchange exited with ${code}`)));
  });
  const { url } = JSON.parse(line);
  return {
    url,
    async requests(path) {
      const res = await fetch(`${url}/__mock/requests?path=${encodeURIComponent(path)}`);
      return res.json();
    },
    close: () => new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGTERM"))),
  };
}
