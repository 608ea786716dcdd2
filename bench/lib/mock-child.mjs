// Child-process entry: the mock exchange on 127.0.0.1, stopped by SIGTERM/SIGINT or when the
// parent's end of stdin closes (so a parent that dies, even by SIGKILL, leaves no server behind).
import { startMockExchange } from "../../tests/js/mock-exchange.mjs";

const mock = await startMockExchange({ port: 0 });
process.stdout.write(`${JSON.stringify({ url: mock.url })}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await mock.close();
  process.exit(0);
}
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.stdin.once("end", stop);
process.stdin.once("close", stop);
process.stdin.resume();
