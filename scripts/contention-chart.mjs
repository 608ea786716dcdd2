// The README's contention chart: retryline's simulator (docs/contention.json, from
// `cargo run --release --example contention -- --json`) beside the published model's means
// (examples/contention_published.json), calls and completion time against clients.
//   node scripts/contention-chart.mjs   → docs/contention.svg
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { contentionSvg } from "../www/contention-chart.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const ours = JSON.parse(readFileSync(`${root}/docs/contention.json`, "utf8"));
const published = JSON.parse(readFileSync(`${root}/examples/contention_published.json`, "utf8"));
const caption = "solid: retryline's simulator (src/contention) · dashed: the published model run from its source · means of 100 runs";
writeFileSync(`${root}/docs/contention.svg`, contentionSvg(ours, published, caption));
console.log("wrote docs/contention.svg");
