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
    ...(() => {
      const r = w.rows.find((x) => x.id === "retryline");
      const p = w.rows.find((x) => x.id === "p-retry");
      if (!r || !p || w.overPRetryUs === undefined) return [];
      return [``, `retryline ${fixed(1)(r.usPerCall)} µs per call against p-retry's ${fixed(1)(p.usPerCall)} µs — target ≤ p-retry + ${w.overPRetryUs} µs = ${fixed(1)(p.usPerCall + w.overPRetryUs)} µs (issue 31): ` +
        `${verdict(r.usPerCall <= p.usPerCall + w.overPRetryUs)} (${signed(1)(r.usPerCall - p.usPerCall)} µs). The per-call section below measures the same with CPU time beside it.`];
    })(),
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

function breaker(b) {
  const s = b.settings;
  const latency = (v) => (v === null || v === undefined ? `not in ${s.capMs / 1000} s` : int(v));
  const outcomes = (o) => Object.entries(o).sort((x, y) => y[1] - x[1]).map(([k, n]) => `${int(n)} × ${k}`).join(", ");
  const rows = b.rows.filter((r) => !r.error);
  return [
    `### Breakers: ${s.reads} reads every ${s.everyMs} ms for ${s.wavesMs / 1000} s, route hanging for the first ${s.outageMs / 1000} s`,
    ``,
    `The route hangs (never answers) until ${s.outageMs / 1000} s, then answers 200; every caller's attempt timeout is ${s.attemptTimeoutMs} ms. ` +
      `Requests counted by the server (in the benchmark's process, one contender at a time, each with its own server and one breaker shared by all its callers). ` +
      `*Recovery* = from the route's recovery until the first request reaches the server (every one then is answered 200), and until a caller has its first success. ` +
      `Where nobody had succeeded by ${s.wavesMs / 1000} s, the waves went on until someone did, up to ${s.capMs / 1000} s ("waves" says how many were sent; the totals include them).`,
    ``,
    markdownTable([
      { title: "library", value: (r) => r.name },
      { title: "server: requests during the outage", value: (r) => int(r.serverDuringOutage), right: true },
      { title: "server: requests in all", value: (r) => int(r.serverTotal), right: true },
      { title: "recovery at the server, ms", value: (r) => latency(r.serverRecoveryMs), right: true },
      { title: "recovery at a caller, ms", value: (r) => latency(r.callerRecoveryMs), right: true },
      { title: "waves", value: (r) => r.waves, right: true },
      { title: "calls ok", value: (r) => int(r.ok), right: true },
      { title: "refused", value: (r) => int(r.refused), right: true },
      { title: "failed otherwise", value: (r) => int(r.failedOtherwise), right: true },
      { title: "calls started after the recovery: ok / refused", value: (r) => `${int(r.afterRecovery.ok)} / ${int(r.afterRecovery.refused)} of ${int(r.afterRecovery.calls)}`, right: true },
    ], rows),
    ``,
    ...b.rows.map((r) => (r.error ? `* ${r.name}: **failed**: ${r.error}` : `* ${r.name}: ${outcomes(r.outcomes)}${r.drained ? "" : ` (**${r.calls - r.settled} calls had not settled ${s.drainMs / 1000} s after the last wave**)`}`)),
    ``,
    ...b.rows.map((r) => `* ${r.name}: \`${r.config}\``),
  ].join("\n");
}

function reconnectStorm(r) {
  const st = r.settings;
  const secs = (ms) => (ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1);
  const na = (x) => (x.unavailable ? x.unavailable : x.error ? `failed: ${x.error}` : null);
  const storms = r.rows.filter((x) => x.id !== "ws");
  const waves = (x) => {
    if (!x.perSecond) return "–";
    const shown = x.perSecond.slice(0, 20).join(" · ");
    return x.perSecond.length > 20 ? `${shown} · … (${x.perSecond.length} s)` : shown;
  };
  const notes = (x) => {
    const saw = x.clientsSaw;
    if (!saw) return "";
    if (saw.error) return `no report: ${saw.error}`;
    const parts = [];
    const stopped = Object.entries(saw.stopped ?? {});
    if (stopped.length) parts.push(`stopped: ${stopped.map(([why, n]) => `${n} × ${why}`).join(", ")}`);
    if (saw.uncaught) parts.push(`${saw.uncaught} errors no listener caught: ${Object.entries(saw.uncaughtMessages).map(([m, n]) => `${n} × ${m}`).join("; ")}`);
    return parts.join("; ");
  };
  const pm = r.perMessage;
  const retrylineMsg = pm?.rows.find((x) => x.id === "retryline-private");
  const retrylineMem = r.rows.find((x) => x.id === "retryline-private" && x.memory);
  return [
    `### Reconnect storm: ${int(st.clients)} WebSocket clients dropped at once, handshakes refused (503) for ${secs(st.refusalMs)} s`,
    ``,
    `All on 127.0.0.1, one library at a time, each with its own defaults (only the URL, ws as the WebSocket, and what is listed below are set). ` +
      `The clients run in a child process, the server in the benchmark's; ${int(st.clients)} clients connect, stay open ${secs(st.holdMs)} s, then the server destroys every TCP connection ` +
      `and answers every handshake with HTTP 503 for ${secs(st.refusalMs)} s, then accepts again. Counted by the server: every connection attempt (a WebSocket upgrade; ` +
      `for socket.io an engine.io handshake, its polls and upgrades not counted) with its time. *Back* = ${Math.round(st.backShare * 100)} % of the clients connected again at once; ` +
      `runs are cut at ${secs(st.capMs)} s. The busiest second is the most attempts in any 1 s window, from the drop until a second after ${Math.round(st.backShare * 100)} % were back.`,
    ``,
    markdownTable([
      { title: "library", value: (x) => x.name },
      { title: "attempts in the busiest second", value: (x) => na(x) ?? int(x.busiestSecond), right: true },
      { title: `attempts until ${Math.round(st.backShare * 100)} % back`, value: (x) => (na(x) ? "–" : int(x.attemptsUntilBack)), right: true },
      { title: "per client", value: (x) => (na(x) ? "–" : fixed(2)(x.attemptsPerClient)), right: true },
      { title: `${Math.round(st.backShare * 100)} % back after s`, value: (x) => (na(x) ? "–" : x.backMs === null ? `not in ${secs(st.capMs)} s (${int(x.backAtEnd)} back)` : fixed(1)(x.backMs / 1000)), right: true },
      { title: "refused (503)", value: (x) => (na(x) ? "–" : int(x.refused)), right: true },
      { title: "attempts in each second after the drop", value: (x) => (na(x) ? "–" : waves(x)) },
      { title: "the clients saw", value: (x) => notes(x) },
    ], storms),
    ``,
    `#### Memory per open client`,
    ``,
    `In the same child (\`node --expose-gc\`): JS heap used after all ${int(st.clients)} were open minus before the first was made (after a warm-up of 10 opened and closed), ` +
      `after a full gc, / ${int(st.clients)}; retryline adds its wasm memory's growth. Bytes; the bare ws row is the floor (a ws client socket with an \`open\` listener).`,
    ``,
    markdownTable([
      { title: "library", value: (x) => x.name },
      { title: "per open client", value: (x) => na(x) ?? int(x.memory.heapPerClient + x.memory.wasmPerClient), right: true },
      { title: "JS heap", value: (x) => (x.memory ? int(x.memory.heapPerClient) : "–"), right: true },
      { title: "wasm memory", value: (x) => (x.memory ? int(x.memory.wasmPerClient) : "–"), right: true },
      { title: "over bare ws", value: (x) => (x.memory?.overWs === undefined ? "–" : `${x.memory.overWs >= 0 ? "+" : "−"}${int(Math.abs(x.memory.overWs))}`), right: true },
      { title: `connecting all took s`, value: (x) => (x.connectMs === undefined ? "–" : fixed(1)(x.connectMs / 1000)), right: true },
    ], r.rows),
    ``,
    `#### Per-message cost over a bare ws socket`,
    ``,
    pm?.error
      ? `not measured: ${pm.error}`
      : `The server sends ${int(pm.perRound)} text messages (${pm.payloadBytes} bytes each, pre-framed, one socket write) to one connection at a time; each contender's \`message\` listener ` +
        `reads \`event.data\` and counts. ${pm.rounds} interleaved rounds (a rotated order each) after a warm-up round, ${int(pm.perRound * pm.rounds)} messages per contender counted; ` +
        `timed in the client from its first message to its last: wall time and the client process's CPU time (\`process.cpuUsage()\`, all threads).`,
    ``,
    ...(pm && !pm.error
      ? [
          markdownTable([
            { title: "contender", value: (x) => x.name },
            { title: "µs/message", value: (x) => na(x) ?? fixed(2)(x.usPerMessage), right: true },
            { title: "over bare ws", value: (x) => (x.usOverWs === undefined ? "–" : signed(2)(x.usOverWs)), right: true },
            { title: "CPU µs/message", value: (x) => (x.cpuUsPerMessage === undefined ? "–" : fixed(2)(x.cpuUsPerMessage)), right: true },
            { title: "CPU over bare ws", value: (x) => (x.cpuUsOverWs === undefined ? "–" : signed(2)(x.cpuUsOverWs)), right: true },
            { title: "rounds' range µs", value: (x) => (x.roundsUs ? `${fixed(2)(x.roundsUs[0])}–${fixed(2)(x.roundsUs[1])}` : "–"), right: true },
          ], pm.rows),
          ``,
        ]
      : []),
    `retryline adds ${retrylineMsg?.usOverWs === undefined ? `– per message (${retrylineMsg?.unavailable ?? retrylineMsg?.error ?? "not measured"})` : `**${fixed(2)(retrylineMsg.usOverWs)} µs** per message (CPU ${signed(2)(retrylineMsg.cpuUsOverWs)} µs)`} ` +
      `and ${retrylineMem?.memory?.overWs === undefined ? "– per open stream" : `**${int(retrylineMem.memory.overWs)} bytes** per open stream`} over a bare ws socket.`,
    ``,
    `Configured as: ${r.rows.map((x) => `${x.name} \`${x.config}\``).join("; ")}. Servers: \`new WebSocketServer({ noServer: true })\` (ws ${r.versions.ws}) behind an http server; ` +
      `socket.io ${r.versions["socket.io"]} \`new Server(httpServer)\` on a loopback port of its own. Versions: ${Object.entries(r.versions).map(([p, v]) => `${p} ${v}`).join(", ")}.`,
  ].join("\n");
}

function size(s) {
  const k = (n) => (n === null || n === undefined ? "–" : (n / 1024).toFixed(1));
  const names = (files) => files.map((f) => f.path.replace(/^pkg\//, "")).join(", ");
  const p = s.pkgSizes ?? {};
  return [
    `## (d) Size`,
    ``,
    `### Browsers: esbuild bundles`,
    ``,
    `esbuild ${s.esbuild}: \`--bundle --splitting --minify --format=esm --platform=browser\` of an entry importing what a retrying GET needs; ` +
      `each file compressed on its own (gzip -9, brotli); KiB = 1024 bytes. *Loads* = the entry chunk, the chunks it imports statically and the .wasm it fetches; ` +
      `*lazy* = the chunks behind \`import()\` that a call loads only when it needs them (asFetch, the tab locks of a budget shared across tabs). ` +
      `esbuild emits no asset for the page entries' \`new URL(…wasm, import.meta.url)\`, so the default and the lean entry load their inlined bytes (a chunk, counted as loaded); Vite's pages below load the .wasm itself. ` +
      `The "every export" row counts every chunk.`,
    ``,
    markdownTable([
      { title: "entry", value: (r) => r.name },
      { title: "versions", value: (r) => r.versions },
      { title: "files loaded", value: (r) => (r.error ? `failed: ${r.error}` : r.count), right: true },
      { title: "min KiB", value: (r) => k(r.rawBytes), right: true },
      { title: "gzip KiB", value: (r) => k(r.gzipBytes), right: true },
      { title: "brotli KiB", value: (r) => k(r.brotliBytes), right: true },
      { title: "of which wasm, gzip KiB", value: (r) => k(r.wasmGzipBytes), right: true },
      { title: "lazy chunks, gzip KiB", value: (r) => (r.lazy?.count ? `${k(r.lazy.gzipBytes)} (${r.lazy.count})` : "–"), right: true },
    ], s.bundles),
    ``,
    `### Runtimes that don't download: the entry's module graph and its wasm`,
    ``,
    `The files as they ship (not minified), found by esbuild's metafile from the entry (static and dynamic imports); each compressed on its own. ` +
      `Node and workerd read them from disk or the worker's upload: raw is what counts (Cloudflare's upload limit counts the compressed worker).`,
    ``,
    markdownTable([
      { title: "entry", value: (r) => r.name },
      { title: "file", value: (r) => `\`${r.entry}\`` },
      { title: "JS modules", value: (r) => (r.error ? `failed: ${r.error}` : r.modules), right: true },
      { title: "JS raw KiB", value: (r) => k(r.jsRawBytes), right: true },
      { title: "wasm", value: (r) => r.wasm?.path.replace(/^pkg\//, "") ?? "–" },
      { title: "wasm raw KiB", value: (r) => k(r.wasm?.bytes), right: true },
      { title: "raw KiB", value: (r) => k(r.rawBytes), right: true },
      { title: "gzip KiB", value: (r) => k(r.gzipBytes), right: true },
      { title: "brotli KiB", value: (r) => k(r.brotliBytes), right: true },
    ], s.runtimes ?? []),
    ``,
    `pkg/sizes.json (scripts/build.mjs): ${Object.entries(p).map(([name, f]) => `${name} ${k(f.wasm)} KiB (${k(f.wasmGzip)} gzip)`).join(", ")}.` +
      (s.runtimes?.some((r) => r.dynamic?.length) ? ` Dynamic imports in the runtime graphs: ${s.runtimes.map((r) => `${r.id}: ${r.dynamic.length ? r.dynamic.join(", ") : "none"}`).join("; ")}.` : "") +
      ` Lazy chunks of the retrying GET: ${names(s.bundles.find((r) => r.id === "retryline")?.lazyFiles ?? [])}.`,
    ...(s.install ? install(s.install) : []),
  ].join("\n");
}

/** What `npm install` brings, beside ky and p-retry (bench/install.mjs). */
function install(i) {
  const kb = (n) => (n === null || n === undefined ? "–" : `${(n / 1000).toFixed(0)} kB`);
  const ours = i.rows.find((r) => r.id === "retryline" && !r.error);
  return [
    ``,
    `### What \`npm install\` brings`,
    ``,
    `\`npm pack --dry-run\` of each package: retryline from this tree (pkg/ as the build left it), ky and p-retry as installed; kB = 1000 bytes, as npm counts.`,
    ``,
    markdownTable([
      { title: "package", value: (r) => (r.error ? `${r.name}: failed: ${r.error}` : `${r.name} ${r.version}`) },
      { title: "packed", value: (r) => kb(r.packedBytes), right: true },
      { title: "unpacked", value: (r) => kb(r.unpackedBytes), right: true },
      { title: "files", value: (r) => r.files ?? "–", right: true },
      { title: "largest files", value: (r) => (r.largest ?? []).map((f) => `${f.path} ${kb(f.bytes)}`).join(", ") },
    ], i.rows),
    ``,
    ours ? `retryline unpacked: **${kb(ours.unpackedBytes)}** — target ≤ ${kb(i.targetUnpackedBytes)} (issue 36): ${ours.unpackedBytes <= i.targetUnpackedBytes ? "**met**" : "**not met**"}.` : "retryline: not measured.",
  ];
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
    { title: "µs over the bare stub", value: (r) => (r.error ? "–" : signed(1)(r.usOverFloor)), right: true },
    { title: "rounds' range µs", value: (r) => (r.error ? "–" : `${fixed(1)(r.usFastest)}–${fixed(1)(r.usSlowest)}`), right: true },
    { title: "CPU µs/call", value: (r) => (r.error || r.cpuUsPerCall === undefined ? "–" : fixed(1)(r.cpuUsPerCall)), right: true },
    { title: "CPU µs over the bare stub", value: (r) => (r.error || r.cpuUsOverFloor === undefined ? "–" : signed(1)(r.cpuUsOverFloor)), right: true },
    ...extra,
  ];
  return [
    `## Per-call work in Node (instant stub fetch)`,
    ``,
    `Each library wraps \`${p.settings.stub}\` (a fresh Response per attempt); the caller reads every body; calls awaited one after the other, ` +
      `a yield to the event loop (setImmediate) after every ${p.settings.yieldEvery} calls in every row. Median of ${p.settings.rounds} interleaved rounds of ${p.settings.msPerRound} ms: ` +
      `wall time, and the process's CPU time (\`process.cpuUsage()\`, all threads), which other work on the machine moves less.`,
    ``,
    `### Success path (200)`,
    ``,
    markdownTable(cols(), p.success),
    ``,
    `retryline's own work per successful call over the bare stub: with the platform's fetch given a bare URL (handed on as it is) ` +
      (platform ? `**${fixed(1)(platform.usOverFloor)} µs**` : "failed") + `, with a \`fetch\` option (which always gets a \`Request\`) **${fixed(1)(success?.usOverFloor)} µs** — ` +
      `target ≤ ${p.targetUs} µs (issue 24): ${platform ? verdict(platform.usOverFloor <= p.targetUs) : "–"} / ${verdict(success?.usOverFloor <= p.targetUs)}.`,
    ...(() => {
      const pRetry = p.success.find((r) => r.id === "p-retry" && !r.error);
      if (!pRetry || p.overPRetryUs === undefined) return [];
      const limit = pRetry.usPerCall + p.overPRetryUs;
      const said = (r) => (r ? `**${fixed(1)(r.usPerCall)} µs** (${signed(1)(r.usPerCall - pRetry.usPerCall)}): ${verdict(r.usPerCall <= limit)}` : "failed");
      return [``, `Issue 31's target — a successful call over a stub fetch ≤ p-retry + ${p.overPRetryUs} µs, p-retry's of this run: ${fixed(1)(pRetry.usPerCall)} µs, so ≤ ${fixed(1)(limit)} µs: ` +
        `retryline with a \`fetch\` option ${said(success && !success.error ? success : null)}; with the platform's fetch ${said(platform)}. ` +
        `In CPU time: ${fixed(1)(success?.cpuUsPerCall)} and ${fixed(1)(platform?.cpuUsPerCall)} µs against p-retry's ${fixed(1)(pRetry.cpuUsPerCall)} µs.`];
    })(),
    ...(() => {
      const floor = p.success.find((r) => r.id === "shape-decided" && !r.error);
      const best = platform ?? success;
      return floor && best
        ? [``, `The floor of the shape (the call's machine and a minimal driver, which calls \`fetch(url, { signal })\` as the platform-fetch row does): **${signed(1)(floor.usOverFloor)} µs** over the stub; ` +
            `retryline with the platform's fetch is ${fixed(1)(Math.abs(best.usOverFloor - floor.usOverFloor))} µs ${best.usOverFloor >= floor.usOverFloor ? "above" : "below"} it` +
            (best.usOverFloor < floor.usOverFloor && best.usFastest <= floor.usSlowest && floor.usFastest <= best.usSlowest
              ? ` (their rounds' ranges overlap; most of the floor's own cost is Node's AbortController, which both make per attempt)` : "") + `.`, ``]
        : [``];
    })(),
    `### Retry path (503, 503, 200; zero backoff)`,
    ``,
    markdownTable(cols([{ title: "wait between attempts", value: (r) => r.timer ?? "–" }]), p.retry),
    ``,
    `retryline ${fixed(1)(retry?.usPerCall)} µs per call against p-retry's ${fixed(1)(pRetry?.usPerCall)} µs — target ≤ p-retry's (issue 24): ${verdict(retry?.usPerCall <= pRetry?.usPerCall)}.` +
      (() => {
        const thrice = p.retry.find((r) => r.id === "shape-thrice" && !r.error);
        return thrice && pRetry
          ? ` The floor of the shape for the same three attempts (an AbortController per attempt, the machine's timer armed for each, three decisions of the core) is ${fixed(1)(thrice.usPerCall)} µs: ` +
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

/** Each page target of the bundle section with its row: { what, issue, gzipBytes (the target), row }. */
function pageTargets(b) {
  const targets = b.targets ?? [{ id: "retryline", what: "the one-call page", gzipBytes: b.targetGzipBytes, issue: 24 }];
  return targets.map((t) => ({ ...t, row: b.rows.find((x) => x.id === t.id && !x.error) }));
}

function bundle(b, floorSize) {
  if (b.error) return `## Browser pages (Vite builds)\n\nnot measured: ${b.error}`;
  const all = b.rows.find((x) => x.id === "retryline-all" && !x.error);
  const lean = b.rows.find((x) => x.id === "retryline-fetch" && !x.error);
  const page = (x) => {
    if (!x.page) return "not opened";
    if (x.page.error) return `failed: ${x.page.error}`;
    const ok = x.page.status === 200 && x.page.calledServer;
    const dead = x.page.notFetched.length ? `; counted but never fetched: ${x.page.notFetched.join(", ")}` : "";
    const lazy = x.page.lazyFetched?.length ? `; lazy but fetched: ${x.page.lazyFetched.join(", ")}` : "";
    const missing = x.page.fetchedNotEmitted.length ? `; fetched but not emitted: ${x.page.fetchedNotEmitted.join(", ")}` : "";
    const stream = x.page.triedStream ? "; its stream's handshake refused (503), the stream closed" : "";
    return `${ok ? "answered 200" : `status ${x.page.status}`}${stream}${dead}${lazy}${missing}${x.page.problems?.length ? `; ${x.page.problems.join("; ")}` : ""}`;
  };
  const short = (f) => f.path.replace(/^assets\//, "");
  const split = (r) => `JS ${kib(r.jsGzipBytes)} + wasm ${r.wasmAsset ? kib(r.wasmGzipBytes) : "inlined in the JS"}`;
  return [
    `## Browser pages (Vite builds)`,
    ``,
    `Vite ${b.vite} production builds in a fresh project with the npm tarball installed ("browser" export condition): pages whose only code is one call ` +
      `(\`import { RetryClient } from "retryline"; new RetryClient().fetch(url)\`, the same on the lean entry \`retryline/fetch\`, on \`retryline/inline\` and \`retryline/csp\`; \`ky(url)\`, \`pRetry(() => fetch(url) …)\`), ` +
      `a page that streams from the start (default entry: \`client.stream(wsUrl)\`, then \`client.fetch(url)\`; the page's server refuses the WebSocket handshake with a 503, so the stream never connects, and it is closed once the call has answered), ` +
      `and a page that uses every feature of retryline ` +
      `(a client with a store and a shared \`Budget({ share })\`, a keyed order, two unknown outcomes reconciled and resolved, \`asFetch\`, \`budget.snapshot()\`, a stream, \`replay\`). ` +
      `One core per page: the default entry's pages load browser.wasm, the lean entry's browser-fetch.wasm. ` +
      `*Loads* = what the page fetches before its code runs, from Vite's manifest: the entry chunk, the chunks it imports statically and their assets (the page's one .wasm); ` +
      `the every-feature page counts every emitted file but the entry's inlined fallback bytes (browser-inline, browser-fetch-inline: emitted beside the .wasm, fetched only where the .wasm cannot be, so never here; not counted, and a page that fetched them would be listed). ` +
      `Each file compressed on its own (gzip -9, brotli); index.html not counted; KiB = 1024 bytes. ` +
      `Each page was then opened in Chromium ${b.chromium ?? "(not available)"} from 127.0.0.1, and what it fetched compared with what was counted.`,
    ``,
    markdownTable([
      { title: "page", value: (x) => x.name },
      { title: "loads", value: (x) => (x.error ? `failed: ${x.error}` : x.files.map(short).join(", ")) },
      { title: "raw KiB", value: (x) => kib(x.rawBytes), right: true },
      { title: "gzip -9 KiB", value: (x) => kib(x.gzipBytes), right: true },
      { title: "brotli KiB", value: (x) => kib(x.brotliBytes), right: true },
      { title: "of which wasm, gzip KiB", value: (x) => (x.wasmAsset ? kib(x.wasmGzipBytes) : "–"), right: true },
      { title: "lazy chunks not loaded, gzip KiB", value: (x) => (x.lazy?.count ? `${kib(x.lazy.gzipBytes)} (${x.lazy.count})` : "–"), right: true },
      { title: "in Chromium", value: page },
    ], b.rows),
    ``,
    ...pageTargets(b).map(({ what, issue, gzipBytes, row: r }) =>
      r
        ? `* ${what} loads **${kib(r.gzipBytes)} KiB gzip** (${int(r.gzipBytes)} bytes; ${split(r)}) — target ≤ ${kib(gzipBytes)} KiB (issue ${issue}): ` +
          `${verdict(r.gzipBytes <= gzipBytes)}, ${(r.gzipBytes / gzipBytes).toFixed(2)}× the target.` +
          (r.lazy?.count ? ` Its lazy chunks (${r.lazyFiles.map(short).join(", ")}) add ${kib(r.lazy.gzipBytes)} KiB gzip when a call needs them.` : "")
        : `* ${what}: did not build (target ≤ ${kib(gzipBytes)} KiB, issue ${issue}).`),
    ...(all ? [`* The every-feature page loads ${kib(all.gzipBytes)} KiB gzip (${split(all)}).`] : []),
    ...(floorSize && !floorSize.error && lean
      ? [``, `The floor of the shape (below) loads ${kib(floorSize.gzip)} KiB gzip` +
          (floorSize.sameAsLean ? `, with the lean entry's own browser-fetch.wasm (the same bytes)` : "") +
          `: the lean one-call page is ${kib(lean.gzipBytes - floorSize.gzip)} KiB above it (its JS ${kib(lean.jsGzipBytes)} KiB gzip against the floor driver's ${kib(floorSize.jsGzip)}).`]
      : []),
  ].join("\n");
}

function floor(f) {
  if (!f) return null;
  const s = f.size;
  const lines = [
    `## The floor of the shape`,
    ``,
    `What no shell of this package's shape — the core behind plain exports, driven by hand-written JavaScript — goes below (\`bench/floor.mjs\`, \`bench/floor/driver.js\`).`,
  ];
  if (!s || s.error) {
    lines.push(``, `not measured: ${s?.error ?? "?"}`);
    return lines.join("\n");
  }
  lines.push(
    ``,
    `* **Size**: the core's fetch-path exports alone (\`cargo build --release --target wasm32-unknown-unknown --no-default-features --features ${s.features.join(",")}\`, ` +
      `the lean entry's features, then wasm-opt with scripts/build.mjs's passes): ${kib(s.wasm)} KiB, **${kib(s.wasmGzip)} KiB gzip**` +
      (s.sameAsLean === true ? ` — byte for byte pkg/browser-fetch.wasm, the lean entry's module` : s.sameAsLean === false ? ` — not the same bytes as pkg/browser-fetch.wasm (src/ or pkg/ moved since pkg/ was built)` : "") +
      `; plus the driver and the module's loading, minified: ${kib(s.js)} KiB, ${kib(s.jsGzip)} KiB gzip; ` +
      `**${kib(s.gzip)} KiB gzip** in all (${kib(s.brotli)} brotli). Only the ${s.driverOnly.exports.length} exports the driver calls (wasm-metadce, the same passes again): wasm ${kib(s.driverOnly.wasmGzip)} KiB gzip, ` +
      `${kib(s.driverOnly.gzip)} KiB with the JS — the other ${s.exports.length - s.driverOnly.exports.length} exports of the build (${s.exports.filter((e) => !s.driverOnly.exports.includes(e)).join(", ")}) weigh ${kib(s.wasmGzip - s.driverOnly.wasmGzip)} KiB gzip.` +
      (s.stale ? ` (**${s.stale}**.)` : ""),
    `* **Per call**: the driver (${f.driverLines ?? "~130"} lines) makes a client and a budget with rl_client_new / rl_budget_new, and per call begins the call's machine (rl_call_begin), ` +
      `feeds it events with rl_call_event (go; a response's status, Retry-After and Date; a network error; its timer) and does each effect rl_call_poll hands out — send: \`fetch(url, { signal })\` ` +
      `with an AbortController of its own; abort: that controller aborted (a timeout); done — then arms the machine's one timer where the slot's last number says (an attempt's timeout, a sleep); ` +
      `rl_call_free at the end. Its rows are in the per-call tables below ("floor of the shape").`,
  );
  return lines.join("\n");
}

function targets(results) {
  const rows = [];
  const p = results.perCall;
  if (p) {
    const find = (list, id) => list.find((r) => r.id === id && !r.error);
    const floorSuccess = find(p.success, "shape-decided");
    for (const [id, what] of [["retryline-platform", "success path, the platform's fetch given a bare URL: µs over the bare stub"], ["retryline", "success path, a `fetch` option: µs over the bare stub"]]) {
      const r = find(p.success, id);
      rows.push({ what, issue: 24, measured: r ? `${fixed(1)(r.usOverFloor)} µs` : "failed", cpu: r?.cpuUsOverFloor !== undefined ? `${fixed(1)(r.cpuUsOverFloor)} µs` : "–", target: `≤ ${p.targetUs} µs`,
        floor: floorSuccess ? `${fixed(1)(floorSuccess.usOverFloor)} µs` : "–", met: r ? r.usOverFloor <= p.targetUs : false });
    }
    const pRetrySuccess = find(p.success, "p-retry");
    if (p.overPRetryUs !== undefined) {
      for (const [id, what] of [["retryline-platform", "success path over a stub fetch, the platform's fetch: µs per call"], ["retryline", "success path over a stub fetch, a `fetch` option: µs per call"]]) {
        const r = find(p.success, id);
        rows.push({ what, issue: 31, measured: r ? `${fixed(1)(r.usPerCall)} µs` : "failed",
          cpu: r?.cpuUsPerCall !== undefined && pRetrySuccess ? `${fixed(1)(r.cpuUsPerCall)} µs (p-retry ${fixed(1)(pRetrySuccess.cpuUsPerCall)})` : "–",
          target: pRetrySuccess ? `≤ p-retry's ${fixed(1)(pRetrySuccess.usPerCall)} + ${p.overPRetryUs} µs` : "≤ p-retry's + 10 µs (p-retry failed)",
          floor: floorSuccess ? `${fixed(1)(floorSuccess.usPerCall)} µs` : "–", met: r && pRetrySuccess ? r.usPerCall <= pRetrySuccess.usPerCall + p.overPRetryUs : false });
      }
    }
    const retry = find(p.retry, "retryline");
    const pRetry = find(p.retry, "p-retry");
    const floorRetry = find(p.retry, "shape-thrice");
    rows.push({ what: "retry path (503, 503, 200; zero backoff): µs per call", issue: 24, measured: retry ? `${fixed(1)(retry.usPerCall)} µs` : "failed",
      cpu: retry?.cpuUsPerCall !== undefined ? `${fixed(1)(retry.cpuUsPerCall)} µs (p-retry ${fixed(1)(pRetry?.cpuUsPerCall)})` : "–",
      target: pRetry ? `≤ p-retry's ${fixed(1)(pRetry.usPerCall)} µs` : "≤ p-retry's (failed)",
      floor: floorRetry ? `${fixed(1)(floorRetry.usPerCall)} µs` : "–", met: retry && pRetry ? retry.usPerCall <= pRetry.usPerCall : false });
  }
  const w = results.wrapperCost;
  if (w?.overPRetryUs !== undefined) {
    const r = w.rows.find((x) => x.id === "retryline");
    const pr = w.rows.find((x) => x.id === "p-retry");
    rows.push({ what: "(a′) the same call without the network (a JSON body read): µs per call", issue: 31, measured: r ? `${fixed(1)(r.usPerCall)} µs` : "failed",
      target: pr ? `≤ p-retry's ${fixed(1)(pr.usPerCall)} + ${w.overPRetryUs} µs` : "≤ p-retry's + 10 µs (p-retry failed)", floor: "–",
      met: r && pr ? r.usPerCall <= pr.usPerCall + w.overPRetryUs : false });
  }
  const b = results.bundle;
  if (b && !b.error) {
    const fs = results.floor?.size;
    for (const { id, what, issue, gzipBytes, row: r } of pageTargets(b)) {
      rows.push({ what: `${what}, Vite: what it loads, gzip`, issue, measured: r ? `${kib(r.gzipBytes)} KiB` : "failed", target: `≤ ${kib(gzipBytes)} KiB`,
        floor: fs && !fs.error && id !== "retryline-stream" ? `${kib(fs.gzip)} KiB` : "–", met: r ? r.gzipBytes <= gzipBytes : false });
    }
  }
  if (!rows.length) return null;
  return [
    `## Targets (issues 24 and 31)`,
    ``,
    markdownTable([
      { title: "figure", value: (r) => r.what },
      { title: "issue", value: (r) => r.issue, right: true },
      { title: "measured", value: (r) => r.measured, right: true },
      { title: "target", value: (r) => r.target, right: true },
      { title: "", value: (r) => (r.met ? "met" : "**not met**") },
      { title: "floor of the shape", value: (r) => r.floor, right: true },
      { title: "CPU time instead of wall", value: (r) => r.cpu ?? "–", right: true },
    ], rows),
    ``,
    `Measured = wall time (per-call and (a′) sections) or bytes (browser pages); *met* is judged on it; p-retry's figures are this run's. The floor of the shape is bench/floor (the call's machine ` +
      `behind the lean entry's abi-fetch exports, and a minimal JS driver): what no shell of this shape goes below, in the same run.`,
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
  const bytes = (f) => Object.entries(f.wasmBytes ?? {}).map(([name, n]) => `${name} ${int(n)}`).join(", ");
  const line = (what, f) => `${what}: ${f ? `wasm ${f.wasm} (${bytes(f)} bytes), js ${f.glue}${f.problem ? ` — ${f.problem}` : ""}` : "–"}`;
  const all = [b.start, b.memory, b.packed, b.end].filter(Boolean);
  const same = all.every((f) => f.wasm === all[0].wasm && f.glue === all[0].glue);
  return `Builds measured (sha-256 prefixes of pkg/'s wasm modules and of the package's js/): ${[line("pkg/ at the start (imported by the in-process sections)", b.start), b.memory && line("pkg/ when the memory child ran", b.memory), b.packed && line("the packed tarball (bundle, cold start)", b.packed), line("pkg/ at the end", b.end)].filter(Boolean).join("; ")}` +
    (same ? " — one build throughout." : " — **the build changed during the run**: compare rows within a section only.") +
    (b.buildFailed ? ` The build before the run failed (${b.buildFailed}): pkg/ was measured as it was.` : "");
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
  if (results.reconnectStorm) parts.push(reconnectStorm(results.reconnectStorm));
  if (results.breaker) parts.push(breaker(results.breaker));
  if (results.size) parts.push(size(results.size));
  if (results.bundle) parts.push(bundle(results.bundle, results.floor?.size));
  if (results.floor) parts.push(floor(results.floor));
  if (results.perCall) parts.push(perCall(results.perCall));
  if (results.memory) parts.push(memory(results.memory));
  if (results.coldStart) parts.push(coldStart(results.coldStart));
  if (results.configurations) parts.push(configurations(results.configurations));
  const t = targets(results);
  if (t) parts.push(t);
  return parts.join("\n\n") + "\n";
}
