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

const kib = (n) => (n === null || n === undefined ? "–" : (n / 1024).toFixed(1));
const verdict = (ok) => (ok ? "**met**" : "**not met**");
const rangeMs = (r, key, digits = 1) => (r[`${key}Range`] ? `${fixed(digits)(r[`${key}Range`][0])}–${fixed(digits)(r[`${key}Range`][1])}` : "–");

function perCall(p) {
  const success = p.success.find((r) => r.id === "retryline");
  const platform = p.success.find((r) => r.id === "retryline-platform" && !r.error);
  const retry = p.retry.find((r) => r.id === "retryline");
  const pRetry = p.retry.find((r) => r.id === "p-retry");
  const cols = (extra = []) => [
    { title: "library", value: (r) => r.name },
    { title: "µs/call", value: (r) => (r.error ? `failed: ${r.error}` : fixed(1)(r.usPerCall)), right: true },
    { title: "µs over the floor", value: (r) => (r.error ? "–" : signed(1)(r.usOverFloor)), right: true },
    { title: "rounds' range µs", value: (r) => (r.error ? "–" : `${fixed(1)(r.usFastest)}–${fixed(1)(r.usSlowest)}`), right: true },
    ...extra,
  ];
  return [
    `## Per-call work in Node (instant stub fetch)`,
    ``,
    `Each library wraps \`${p.settings.stub}\` (a fresh Response per attempt); the caller reads every body; calls awaited one after the other, ` +
      `a yield to the event loop (setImmediate) after every ${p.settings.yieldEvery} calls in every row. Median of ${p.settings.rounds} interleaved rounds of ${p.settings.msPerRound} ms.`,
    ``,
    `### Success path (200)`,
    ``,
    markdownTable(cols(), p.success),
    ``,
    `retryline's own work per successful call: **${fixed(1)(success?.usOverFloor)} µs** over the floor — target ≤ ${p.targetUs} µs (issue 9): ${verdict(success?.usOverFloor <= p.targetUs)}` +
      (platform ? `; with the platform's fetch (a bare URL handed on as it is) **${fixed(1)(platform.usOverFloor)} µs**: ${verdict(platform.usOverFloor <= p.targetUs)}.` : "."),
    ``,
    ...(() => {
      const floor = p.success.find((r) => r.id === "shape-decided" && !r.error);
      const best = platform ?? success;
      return floor && best
        ? [``, `The floor of the design's shape with the core's decisions (\`bench/floor\`, no feature of retryline's shell): **${signed(1)(floor.usOverFloor)} µs** over the stub; ` +
            `retryline is ${fixed(1)(best.usOverFloor - floor.usOverFloor)} µs above it.`, ``]
        : [``];
    })(),
    `### Retry path (503, 503, 200; zero backoff)`,
    ``,
    markdownTable(cols([{ title: "wait between attempts", value: (r) => r.timer ?? "–" }]), p.retry),
    ``,
    `retryline ${fixed(1)(retry?.usPerCall)} µs per call against p-retry's ${fixed(1)(pRetry?.usPerCall)} µs — target ≤ p-retry's (issue 9): ${verdict(retry?.usPerCall <= pRetry?.usPerCall)}.` +
      (() => {
        const thrice = p.retry.find((r) => r.id === "shape-thrice" && !r.error);
        return thrice && pRetry
          ? ` The floor of the design's shape for three attempts (\`bench/floor\`: an \`AbortController\` and a timer per attempt, nothing else) is ${fixed(1)(thrice.usPerCall)} µs: ` +
              `${thrice.usPerCall > pRetry.usPerCall ? "above p-retry's, which arms no timeout at all" : "below p-retry's"}.`
          : "";
      })(),
    ``,
    `Configured as — success path: ${p.success.filter((r) => r.id !== "stub").map((r) => `${r.name} \`${r.config}\``).join("; ")}. ` +
      `Retry path: ${p.retry.filter((r) => r.id !== "stub").map((r) => `${r.name} \`${r.config}\``).join("; ")}.`,
  ].join("\n");
}

function memory(m) {
  const r = m.rows.find((x) => x.id === "retryline" && !x.error);
  const platform = m.rows.find((x) => x.id === "retryline-platform" && !x.error);
  const mib = (n) => (n / 2 ** 20).toFixed(1);
  const lines = [
    `## Memory per pending operation (Node)`,
    ``,
    `${int(m.settings.calls)} calls pending at once on a fetch stub that never settles until released, issued in batches of ${m.settings.batch} with a yield after each; ` +
      `each library in its own \`node --expose-gc\` process. (JS heap used + wasm memory growth) / ${int(m.settings.calls)}, after a full gc, ` +
      `counted from after a warm-up of 1 000 released calls (the wasm memory from its size before the warm-up). Bytes.`,
    ``,
    markdownTable([
      { title: "library", value: (x) => x.name },
      { title: "per pending op", value: (x) => (x.error ? `failed: ${x.error}` : int(x.perPendingBytes)), right: true },
      { title: "JS heap", value: (x) => int(x.heapPerPendingBytes), right: true },
      { title: "wasm memory", value: (x) => (x.error ? "–" : int(x.wasmPerPendingBytes)), right: true },
      { title: "over the floor", value: (x) => (x.overFloorBytes === undefined ? "–" : int(x.overFloorBytes)), right: true },
      { title: "issuing took s", value: (x) => (x.bursts ? x.bursts.map((b) => fixed(1)(b.issueMs / 1000)).join(" / ") : "–"), right: true },
      { title: "heap left after release", value: (x) => (x.error ? "–" : int(x.heapLeftAfterReleaseBytes)), right: true },
    ], m.rows),
    ``,
  ];
  if (r) {
    const s = r.snapshots;
    lines.push(
      `retryline: **${int(r.perPendingBytes)} bytes** per pending operation (${int(r.heapPerPendingBytes)} JS heap + ${int(r.wasmPerPendingBytes)} wasm) — ` +
        `target ≤ ${int(m.targetBytes)} bytes (issue 9): ${verdict(r.perPendingBytes <= m.targetBytes)}. ` +
        `Wasm memory ${mib(s.base.wasm)} MiB → ${mib(s.pending1.wasm)} MiB with all pending → ${mib(s.released1.wasm)} MiB released` +
        (s.pending2
          ? `; a second burst of ${int(r.calls)} grew it by ${int(r.wasmGrowthSecondBurst)} bytes (${(100 * r.wasmGrowthSecondBurst / Math.max(1, s.pending1.wasm - s.base.wasm)).toFixed(1)} % of the first burst's growth): ` +
            `${r.wasmGrowthSecondBurst <= 0.05 * (s.pending1.wasm - s.base.wasm) ? "**reused**" : "**not reused**"}, ${int(r.secondBurstPerPendingBytes)} bytes per pending op in that burst.`
          : "."),
      ...(platform
        ? [``, `With the platform's fetch (the default; a bare URL is handed on with no \`Request\` of retryline's): **${int(platform.perPendingBytes)} bytes** ` +
            `(${int(platform.heapPerPendingBytes)} JS heap + ${int(platform.wasmPerPendingBytes)} wasm): ${verdict(platform.perPendingBytes <= m.targetBytes)}.`]
        : []),
      ``,
      `Configured as: ${m.rows.map((x) => `${x.name} \`${x.config}\``).join("; ")}. retryline's wasm memory found through ${r.memoryVia}. Issuing each tenth of the bursts took (ms): ${r.bursts.map((b) => b.issueMsPerTenth.join(", ")).join(" | ")}.`,
    );
  }
  return lines.join("\n");
}

function bundle(b) {
  if (b.error) return `## Browser bundle (Vite build of a one-call page)\n\nnot measured: ${b.error}`;
  const r = b.rows.find((x) => x.id === "retryline" && !x.error);
  const page = (x) => {
    if (!x.page) return "not opened";
    if (x.page.error) return `failed: ${x.page.error}`;
    const ok = x.page.status === 200 && x.page.calledServer;
    const dead = x.page.notFetched.length ? `; never fetched: ${x.page.notFetched.join(", ")}` : "";
    const missing = x.page.fetchedNotEmitted.length ? `; fetched but not emitted: ${x.page.fetchedNotEmitted.join(", ")}` : "";
    return `${ok ? "call answered 200" : `status ${x.page.status}`}${dead}${missing}${x.page.problems?.length ? `; ${x.page.problems.join("; ")}` : ""}`;
  };
  return [
    `## Browser bundle (Vite build of a one-call page)`,
    ``,
    `Vite ${b.vite} production build of a page whose only code is one call (e.g. \`import { RetryClient } from "retryline"; new RetryClient().fetch(url)\`), ` +
      `in a fresh project with the npm tarball installed ("browser" export condition). Every emitted file except index.html, each compressed on its own; KiB = 1024 bytes. ` +
      `Each page was then opened in Chromium ${b.chromium ?? "(not available)"} from 127.0.0.1.`,
    ``,
    markdownTable([
      { title: "page", value: (x) => x.name },
      { title: "files", value: (x) => (x.error ? `failed: ${x.error}` : x.files.map((f) => f.path.replace(/^assets\//, "")).join(", ")) },
      { title: "raw KiB", value: (x) => kib(x.rawBytes), right: true },
      { title: "gzip -9 KiB", value: (x) => kib(x.gzipBytes), right: true },
      { title: "brotli KiB", value: (x) => kib(x.brotliBytes), right: true },
      { title: "of which wasm, gzip KiB", value: (x) => (x.wasmAsset ? kib(x.wasmGzipBytes) : "–"), right: true },
      { title: "in Chromium", value: page },
    ], b.rows),
    ``,
    r
      ? `retryline's page: **${kib(r.gzipBytes)} KiB gzip** (${int(r.gzipBytes)} bytes; JS ${kib(r.jsGzipBytes)} + wasm ${r.wasmAsset ? kib(r.wasmGzipBytes) : "inlined in the JS"}) — ` +
        `target ≤ 60 KB (issue 9; ${int(b.targetGzipBytes)} bytes): ${verdict(r.gzipBytes <= b.targetGzipBytes)}, ${(r.gzipBytes / b.targetGzipBytes).toFixed(2)}× the target.`
      : `retryline's page did not build.`,
    ...(b.floor && !b.floor.error
      ? [``, `The floor of the design's shape (\`bench/floor\`: a Rust shell that awaits fetch with an attempt timeout and the core's decisions, nothing else; ` +
          `release build, wasm-opt -O1, glue minified by esbuild): wasm ${kib(b.floor.wasmGzip)} + glue ${kib(b.floor.glueGzip)} = **${kib(b.floor.wasmGzip + b.floor.glueGzip)} KiB gzip**` +
          (r ? `; retryline's page is ${kib(r.gzipBytes - b.floor.wasmGzip - b.floor.glueGzip)} KiB above it: the code of its features.` : ".")]
      : []),
  ].join("\n");
}

function coldStart(c) {
  if (c.error) return `## Cold start\n\nnot measured: ${c.error}`;
  const ms = fixed(1);
  const parts = [
    `## Cold start`,
    ``,
    `Median of interleaved samples, ms. *Ready* = the library imported and (retryline) \`new RetryClient()\` returned, so a call can be made; ` +
      `*first response* = also one call made and its body read. Packages from the fresh project (npm tarball), each runtime's own export condition.`,
    ``,
    `### Node ${c.node ? `(${c.node.samples} samples, a new process each; instant stub fetch)` : ""}`,
    ``,
    c.node
      ? markdownTable([
          { title: "library", value: (r) => r.name },
          { title: "import → ready", value: (r) => ms(r.readyMs), right: true },
          { title: "range", value: (r) => rangeMs(r, "readyMs"), right: true },
          { title: "import → first response", value: (r) => ms(r.firstResponseMs), right: true },
          { title: "CPU ms to ready", value: (r) => ms(r.readyCpuMs), right: true },
          { title: "CPU ms to first response", value: (r) => ms(r.firstResponseCpuMs), right: true },
          { title: "process start → ready", value: (r) => ms(r.processAgeAtReadyMs), right: true },
          { title: "errors", value: (r) => r.errors?.join("; ") ?? "" },
        ], c.node.rows)
      : "not measured",
    ``,
    ...(c.chromium?.runs
      ? c.chromium.runs.flatMap((run) => [
          `### Chromium ${c.chromium.chromium}, ${run.cpuThrottle === 1 ? "CPU not slowed" : `CPU ${run.cpuThrottle}× slower`} (${c.chromium.samples} samples, a new context each)`,
          ``,
          markdownTable([
            { title: "page", value: (r) => r.name },
            { title: "import → ready", value: (r) => ms(r.readyMs), right: true },
            { title: "range", value: (r) => rangeMs(r, "readyMs"), right: true },
            { title: "import → first response", value: (r) => ms(r.firstResponseMs), right: true },
            { title: "navigation → ready", value: (r) => ms(r.navToReadyMs), right: true },
            { title: "errors", value: (r) => r.errors?.join("; ") ?? "" },
          ], run.rows),
          ``,
        ])
      : [`### Chromium`, ``, `not measured: ${c.chromium?.error ?? "?"}`, ``]),
    `### workerd${c.workerd?.rows ? ` ${c.workerd.workerd} (${c.workerd.samples} samples, a new process each)` : ""}`,
    ``,
  ];
  if (c.workerd?.rows) {
    const floor = c.workerd.rows.find((r) => r.id === "none");
    parts.push(markdownTable([
      { title: "worker", value: (r) => r.name },
      { title: "spawn → listening", value: (r) => ms(r.listenMs), right: true },
      { title: "spawn → first response", value: (r) => ms(r.firstResponseMs), right: true },
      { title: "range", value: (r) => rangeMs(r, "firstResponseMs"), right: true },
      { title: "first response over the floor", value: (r) => (floor && r.firstResponseMs !== undefined ? signed(1)(r.firstResponseMs - floor.firstResponseMs) : "–"), right: true },
      { title: "CPU ms (all threads)", value: (r) => ms(r.cpuMs), right: true },
      { title: "CPU over the floor", value: (r) => (floor?.cpuMs !== undefined && r.cpuMs !== undefined ? signed(1)(r.cpuMs - floor.cpuMs) : "–"), right: true },
      { title: "errors", value: (r) => r.errors?.join("; ") ?? "" },
    ], c.workerd.rows));
  } else {
    parts.push(`not measured: ${c.workerd?.error ?? "?"}`);
  }
  return parts.join("\n");
}

function builds(b) {
  const line = (what, f) => `${what}: ${f ? `wasm ${f.wasm} (${int(f.wasmBytes)} bytes), glue ${f.glue}${f.problem ? ` — ${f.problem}` : ""}` : "–"}`;
  const all = [b.start, b.memory, b.packed, b.end].filter(Boolean);
  const same = all.every((f) => f.wasm === all[0].wasm && f.glue === all[0].glue);
  return `Builds measured (sha-256 prefixes): ${[line("pkg/ at the start (imported by the in-process sections)", b.start), b.memory && line("pkg/ when the memory child ran", b.memory), b.packed && line("the packed tarball (bundle, cold start)", b.packed), line("pkg/ at the end", b.end)].filter(Boolean).join("; ")}` +
    (same ? " — one build throughout." : " — **the build changed during the run**: compare rows within a section only.");
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
  if (results.builds) parts.push(builds(results.builds));
  if (results.overhead) parts.push(overhead(results.overhead));
  if (results.wrapperCost) parts.push(wrapperCost(results.wrapperCost));
  if (results.decisions) parts.push(decisions(results.decisions));
  if (results.retryAfter) parts.push(retryAfter(results.retryAfter));
  if (results.storm) parts.push(storm(results.storm));
  if (results.size) parts.push(size(results.size));
  if (results.bundle) parts.push(bundle(results.bundle));
  if (results.perCall) parts.push(perCall(results.perCall));
  if (results.memory) parts.push(memory(results.memory));
  if (results.coldStart) parts.push(coldStart(results.coldStart));
  if (results.configurations) parts.push(configurations(results.configurations));
  return parts.join("\n\n") + "\n";
}
