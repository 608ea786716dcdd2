// A Node process that opens a stream and closes it (tests/js/stream-close.test.mjs): `open` closes
// it once open, `waiting` from a state listener when it starts waiting between attempts. It prints
// how long after the close the process exited, beside a control timer armed at the close: a timer
// that outlives close() keeps the process alive past the control.
import { WebSocket } from "ws";
import { RetryClient } from "../../../js/node.js";

const [url, when] = process.argv.slice(2);
const CONTROL_MS = 300;
let closedAt = null;
let controlAt = null;
const close = (stream) => {
  closedAt = performance.now();
  stream.close();
  setTimeout(() => (controlAt = performance.now()), CONTROL_MS);
};
process.on("exit", () => {
  const now = performance.now();
  process.stdout.write(`${JSON.stringify({ afterCloseMs: now - closedAt, afterControlMs: controlAt === null ? null : now - controlAt })}\n`);
});
const stream = new RetryClient().stream(url, { WebSocket, minUptimeMs: 0, policy: { baseDelayMs: 2000, maxDelayMs: 4000 } });
stream.addEventListener("state", () => {
  if ((when === "open" && stream.state === "open") || (when === "waiting" && stream.state === "waiting")) close(stream);
});
