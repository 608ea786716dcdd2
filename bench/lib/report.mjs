// Renders a results object (as written to results/latest.json) as Markdown.
import { fixed, int, markdownTable, signed } from "./format.mjs";

const ms1 = fixed(1);
const ms3 = fixed(3);

function machine(m) {
  const load = (l) => l.map((x) => x.toFixed(2)).join(" ");
  const speeds = [...new Set(m.cpuSpeedMHz)].filter((mhz) => mhz > 0).join("/");
  return [
    `${m.date} · ${m.cpuCount} × ${m.cpuModel}${speeds ? ` (${speeds} MHz)` : ""} · ${m.totalMemGiB} GiB · ${m.os} · Node ${m.node}`,
    `load average (1/5/15 min) before ${load(m.loadAverageBefore)}, after ${m.loadAverageAfter ? load(m.loadAverageAfter) : "–"}` +
      ` · retryline at ${m.git.commit ?? "?"}${m.git.uncommittedLibraryFiles ? ` + ${m.git.uncommittedLibraryFiles} uncommitted library files` : ""}` +
      (m.durationS ? ` · run took ${m.durationS.toFixed(0)} s` : ""),
  ].join("  \n");
}

function overhead(o) {
  return [
    `## (a) Overhead per successful request`,
    ``,
    `${o.settings.requests} sequential GETs per library in ${o.settings.rounds} interleaved rounds, after ${o.settings.warmup} warm-up requests each; ` +
      `the mock exchange runs in its own process and answers every request on a new connection (\`Connection: close\`). Bodies are read (JSON).`,
    ``,
    markdownTable([
      { title: "library", value: (r) => r.name },
      { title: "median ms", value: (r) => ms3(r.medianMs), right: true },
      { title: "p99 ms", value: (r) => ms3(r.p99Ms), right: true },
      { title: "req/s", value: (r) => int(r.requestsPerSecond), right: true },
      { title: "median vs fetch", value: (r) => signed(3)(r.medianOverFetchMs), right: true },
      { title: "server saw", value: (r) => int(r.serverRequests), right: true },
    ], o.rows),
  ].join("\n");
}

function wrapperCost(w) {
  return [
    `### (a′) The same call without the network`,
    ``,
    `Each library wraps a stub fetch that answers at once with a fresh 200 JSON Response; calls are awaited one after the other. ` +
      `Median of ${w.settings.rounds} interleaved rounds. axios runs on its fetch adapter here.`,
    ``,
    markdownTable([
      { title: "library", value: (r) => r.name },
      { title: "calls/s", value: (r) => int(r.opsPerSecond), right: true },
      { title: "µs/call", value: (r) => fixed(1)(r.usPerCall), right: true },
      { title: "µs over the stub", value: (r) => signed(1)(r.usOverStub), right: true },
      { title: "rounds' range calls/s", value: (r) => `${int(r.minOps)}–${int(r.maxOps)}`, right: true },
    ], w.rows),
  ].join("\n");
}

function decisions(d) {
  return [
    `## (b) Decision cost (no I/O)`,
    ``,
    `One operation = the delays of one 5-attempt schedule (4 retries, windows 500–4000 ms). Median of ${d.settings.rounds} interleaved rounds; ` +
      `the range shows the slowest and fastest round. **Not like for like**: retryline's \`replay()\` runs its whole engine and returns attempt records; the peers return bare numbers.`,
    ``,
    markdownTable([
      { title: "computation", value: (r) => r.name },
      { title: "computes", value: (r) => r.computes },
      { title: "ops/s", value: (r) => int(r.opsPerSecond), right: true },
      { title: "µs/op", value: (r) => fixed(3)(r.nsPerOp / 1000), right: true },
      { title: "rounds' range ops/s", value: (r) => `${int(r.minOps)}–${int(r.maxOps)}`, right: true },
    ], d.rows),
    ``,
    `Not measurable from outside: ${d.notComparable.map((n) => `${n.name} (${n.why})`).join("; ")}.`,
  ].join("\n");
}

function retryAfter(rows) {
  return [
    `## (c) Behaviour under a failing provider`,
    ``,
    `### 429 with \`Retry-After: 1\`, then 200`,
    ``,
    `3 attempts, base delay 100 ms (axios-retry: its documented \`exponentialDelay\`, 200 ms), so a gap of a second comes only from the header. ` +
      `Gap = server-side, from the 429 leaving to the retry arriving.`,
    ``,
    markdownTable([
      { title: "library", value: (r) => r.name },
      { title: "honoured Retry-After", value: (r) => (r.honouredRetryAfter ? "yes" : "**no**") },
      { title: "gap ms", value: (r) => ms1(r.gapMs), right: true },
      { title: "server requests", value: (r) => r.serverRequests, right: true },
      { title: "final status", value: (r) => `${r.finalStatus ?? "–"}${r.error ? ` (${r.error})` : ""}` },
      { title: "total ms", value: (r) => ms1(r.totalMs), right: true },
    ], rows),
  ].join("\n");
}

function storm(rows) {
  const outcomes = (o) => Object.entries(o).map(([k, n]) => `${n} × ${k}`).join(", ");
  return [
    `### Storm: ${rows[0]?.reads ?? 200} concurrent reads, route always 503`,
    ``,
    `3 attempts, base delay 100 ms (axios-retry 200 ms). Requests counted by the server.`,
    ``,
    markdownTable([
      { title: "library", value: (r) => r.name },
      { title: "server requests", value: (r) => r.serverRequests, right: true },
      { title: "per read", value: (r) => fixed(2)(r.requestsPerRead), right: true },
      { title: "peak / 100 ms", value: (r) => r.peakPer100Ms, right: true },
      { title: "total ms", value: (r) => int(r.totalMs), right: true },
      { title: "callers got", value: (r) => outcomes(r.outcomes) },
    ], rows),
  ].join("\n");
}

function size(s) {
  const kib = (n) => (n / 1024).toFixed(1);
  const p = s.retrylinePkg;
  return [
    `## (d) Size`,
    ``,
    `esbuild ${s.esbuild}: \`--bundle --minify --format=esm --platform=browser\` of an entry importing what a retrying GET needs; KiB = 1024 bytes.`,
    ``,
    markdownTable([
      { title: "library", value: (r) => r.name },
      { title: "versions", value: (r) => r.versions },
      { title: "min KiB", value: (r) => kib(r.rawBytes), right: true },
      { title: "gzip KiB", value: (r) => kib(r.gzipBytes), right: true },
      { title: "brotli KiB", value: (r) => kib(r.brotliBytes), right: true },
    ], s.bundles),
    ``,
    `retryline's pkg/sizes.json (files served separately, glue not minified): wasm ${kib(p.wasm)} KiB (${kib(p.wasmGzip)} gzip) + ` +
      `glue ${kib(p.glue)} KiB (${kib(p.glueGzip)} gzip) = **${kib(p.separateGzip)} KiB gzip**; inlined module ${kib(p.inlineGzip)} KiB gzip.`,
  ].join("\n");
}

function configurations(list) {
  return [`## Configurations`, ``, ...list.map((c) => `* ${c.name}: \`${c.config}\``)].join("\n");
}

export function renderMarkdown(results) {
  const parts = [
    `# retryline benchmarks`,
    machine(results.machine),
    `Measured on a shared 2-core machine: compare rows of the same run, not numbers across runs; ` +
      `timings move with the machine's load, server-side request counts and Retry-After gaps do not.`,
  ];
  if (results.overhead) parts.push(overhead(results.overhead));
  if (results.wrapperCost) parts.push(wrapperCost(results.wrapperCost));
  if (results.decisions) parts.push(decisions(results.decisions));
  if (results.retryAfter) parts.push(retryAfter(results.retryAfter));
  if (results.storm) parts.push(storm(results.storm));
  if (results.size) parts.push(size(results.size));
  if (results.configurations) parts.push(configurations(results.configurations));
  return parts.join("\n\n") + "\n";
}
