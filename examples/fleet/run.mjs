// A fleet of Node processes behind one IP, one budget kept in Redis: starts `n` workers (worker.mjs)
// together and prints what each sent and the total, which stays within one bucket.
//   node examples/fleet/run.mjs [redis URL] [exchange URL] [processes] [seconds]
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const [redis = "redis://127.0.0.1:6379", base = "https://api.binance.com", n = "4", seconds = "3"] = process.argv.slice(2);
const worker = fileURLToPath(new URL("./worker.mjs", import.meta.url));
const one = () => new Promise((resolve, reject) =>
  execFile(process.execPath, [worker, redis, base, seconds], (error, out, err) => (error ? reject(new Error(err || error.message)) : resolve(JSON.parse(out)))));

const workers = await Promise.all(Array.from({ length: Number(n) }, one));
for (const w of workers) console.error(`process ${w.pid}: sent ${w.sent}, refused ${JSON.stringify(w.refused)}, sharing ${w.sharing}`);
console.log(JSON.stringify({ processes: workers.length, sent: workers.reduce((s, w) => s + w.sent, 0), sharing: workers.map((w) => w.sharing) }));
