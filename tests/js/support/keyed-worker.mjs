// A worker process that runs one keyed read against the mock with a file-backed store.
// argv: <mock url> <store file> <key> <path>; prints one JSON line when done.
import { RetryClient } from "../../../js/node.js";
import { fileStore } from "./file-store.mjs";

const [url, file, key, path] = process.argv.slice(2);
const client = new RetryClient({
  store: fileStore(file),
  policy: { maxAttempts: 3, jitter: "none", baseDelayMs: 1500, maxDelayMs: 1500, attemptTimeoutMs: 1000, deadlineMs: 6000 },
  onAttempt: (record) => console.log(JSON.stringify({ record })),
});
try {
  const response = await client.fetch(`${url}${path}`, undefined, { key, operation: "read" });
  console.log(JSON.stringify({ done: "success", status: response.status }));
} catch (error) {
  console.log(JSON.stringify({ done: error.reason ?? String(error), records: error.records }));
}
