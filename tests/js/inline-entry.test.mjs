// `retryline/inline` (the wasm inlined as base64) is the same API as the default entries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const WORKED_EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/worked_example.json", import.meta.url), "utf8"));

test("the inline entry runs the worked example as the Node entry does", async () => {
  const inline = await import("../../js/inline.js");
  const node = await import("../../js/node.js");
  const report = inline.replay(WORKED_EXAMPLE);
  assert.equal(report.wireRequests, 4);
  assert.deepEqual(report.stop, { reason: "deadline", atMs: 8400 });
  assert.deepEqual(report, node.replay(WORKED_EXAMPLE));
  assert.equal(typeof inline.RetryClient, "function");
  assert.equal(inline.RetryError, node.RetryError);
});

test("package.json maps retryline/inline to it", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  assert.equal(pkg.exports["./inline"].import, "./js/inline.js");
  assert.equal(pkg.exports["./inline"].require, "./pkg/inline.cjs");
  assert.ok(pkg.files.includes("js/inline.js") && pkg.files.includes("pkg/browser-inline.js"));
});
