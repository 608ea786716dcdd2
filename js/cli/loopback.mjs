// The loopback exchange `retryline verify` runs its wire cases against: per path, a queue of
// answers (a status, with Retry-After; or an order executed and its connection dropped), and a
// count of every request that reached it. Listens on 127.0.0.1 only; close() ends everything.
import http from "node:http";

export async function startLoopback() {
  const queues = new Map();
  const counts = new Map();
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    req.resume();
    const next = queues.get(path)?.shift() ?? { status: 200 };
    if (next.drop) {
      // The order is executed (counted), its answer lost: the connection dies without a response.
      req.socket.destroy();
      return;
    }
    if (next.retryAfter !== undefined) res.setHeader("retry-after", String(next.retryAfter));
    res.writeHead(next.status, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: next.status }));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    script: (path, answers) => queues.set(path, [...answers]),
    count: (path) => counts.get(path) ?? 0,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
