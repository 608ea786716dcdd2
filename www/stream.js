// The stream panel: a live ticker (client.stream on the mock exchange's /ws/ticker) through the
// episodes of stream-episodes.js, one button each and all in sequence. Each episode has a client
// of its own (its REST read shares the stream's budget and scope, nothing else does) and tags its
// connections (?run=), so the chart draws what the server logged for it alone; the state and the
// last price are shown live, and the records as a table. Its client is the page's (clients.js):
// the connection attempts run under the family "ticker stream", the REST read under its own.
import { client as pageClient } from "./clients.js";
import { episodes, read, STREAM_OPTIONS } from "./stream-episodes.js";
import { drawStreamChart, STATE_COLOURS } from "./stream-chart.js";
import { drawRecords } from "./records.js";

const PATH = "/ws/ticker";
const COLUMNS = [
  ["operation", "operation"], ["attempt", "#"], ["decision", "decision"], ["outcome", "outcome"], ["status", "status"],
  ["decidedAtMs", "decided ms"], ["startMs", "start ms"], ["endMs", "end ms"], ["windowMs", "window"], ["sampledDelayMs", "draw"],
  ["providerWaitMs", "provider min"], ["plannedWaitMs", "planned wait"], ["reason", "reason"], ["error", "error"],
];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const price = (p) => Number(p).toLocaleString("en-US", { minimumFractionDigits: 2 });

/** Sets the panel up in the elements of index.html's #stream-panel; `ex` is the mock exchange. */
export function streamPanel($, ex) {
  const runs = new Map(); // episode id -> its last run
  let current = null; // the run under way

  const buttons = [
    Object.assign(document.createElement("button"), { textContent: "Run all four", id: "stream-all" }),
    ...episodes.map((ep) => Object.assign(document.createElement("button"), { textContent: ep.name, className: "secondary", value: ep.id })),
  ];
  $("stream-controls").prepend(...buttons);
  const draw = () => drawStreamChart($("stream-chart"), episodes.map((ep) => ({ name: ep.name, run: runs.get(ep.id) ?? null })));
  draw();
  showLive(null);

  function showLive(run) {
    const stream = run?.stream;
    const state = stream?.state ?? "idle";
    const stale = stream?.staleForMs ? ` · stale for ${(stream.staleForMs / 1000).toFixed(1)} s` : "";
    const ago = stream?.lastMessageAt ? `last tick ${((Date.now() - stream.lastMessageAt) / 1000).toFixed(1)} s ago` : "no tick yet";
    $("stream-live").innerHTML = `<span class="state" style="background:${STATE_COLOURS[state] ?? "#e5e8f0"}" data-state="${state}">${state}</span>` +
      `<span class="price">BTCUSDT <b data-price>${run?.last ? price(run.last.p) : "—"}</b></span>` +
      `<span>${run?.last ? `seq ${run.last.seq} · ` : ""}${ago}${stale}</span><span class="episode">${run ? `${run.t1 === null ? "running" : "last run"}: ${run.name}` : ""}</span>`;
  }

  /** The episode in focus (running, or chosen for its records): what it does. */
  function showAbout(id) {
    const ep = episodes.find((e) => e.id === id);
    $("stream-about").innerHTML = ep ? `<b>${ep.name}</b>: ${ep.about}` : "";
  }

  function showRecords() {
    const run = runs.get($("stream-episode").value);
    drawRecords($("stream-records"), run?.records ?? [], COLUMNS);
    showAbout(run?.id);
  }

  function showResults(latest) {
    const done = episodes.map((ep) => runs.get(ep.id)).filter((r) => r && r.t1 !== null);
    $("stream-results").replaceChildren(...done.map((r) => {
      const li = Object.assign(document.createElement("li"), { innerHTML: `<b>${r.name}</b>: ${r.error ? `failed: ${r.error}` : r.note}` });
      Object.assign(li.dataset, { episode: r.id, run: r.tag, facts: JSON.stringify(r.facts), ok: String(!r.error) });
      return li;
    }));
    $("stream-episode").replaceChildren(...done.map((r) => new Option(`${r.name}: ${r.records.length} records`, r.id)));
    $("stream-episode").value = latest.id;
    showRecords();
  }

  async function runEpisode(ep) {
    const records = [];
    const client = pageClient(ex, { onAttempt: (r) => records.push(r) });
    const run = { id: ep.id, name: ep.name, tag: ex.runTag("stream"), t0: Date.now(), t1: null, states: [], marks: [], connections: [], records, note: "", facts: {}, stream: null, last: null, error: null };
    runs.set(ep.id, run);
    current = run;
    showAbout(ep.id);
    let lastTickAt = 0;
    const until = async (check, what, ms = 15_000) => {
      const end = Date.now() + ms;
      while (!check()) {
        if (Date.now() > end) throw new Error(`no ${what} within ${ms / 1000} s`);
        await sleep(25);
      }
    };
    const ctx = {
      ex, t0: run.t0, lastSeq: 0, seqs: new Set(), until, sleep,
      get stream() { return run.stream; },
      open(options = {}) {
        const stream = client.stream(`${ex.ws}${PATH}?run=${run.tag}`, { ...STREAM_OPTIONS, ...ep.options, ...options });
        run.stream = stream;
        run.states.push({ at: Date.now(), state: stream.state });
        stream.addEventListener("state", (e) => run.states.push({ at: Date.now(), state: e.state }));
        stream.addEventListener("message", (e) => {
          const tick = JSON.parse(e.data);
          lastTickAt = Date.now();
          run.last = tick;
          ctx.lastSeq = tick.seq;
          ctx.seqs.add(tick.seq);
        });
        stream.addEventListener("stop", (e) => (run.stopped = e.reason));
        return until(() => lastTickAt > 0 || run.stopped, "first tick").then(() => lastTickAt);
      },
      fresh: (after) => until(() => lastTickAt > after, "tick after the incident", 20_000).then(() => lastTickAt),
      async back(since) {
        const lost = () => run.states.find((e) => e.at >= since && (e.state === "connecting" || e.state === "waiting"));
        await until(lost, "disconnection", 5000);
        return ctx.fresh(lost().at);
      },
      read: (url) => read(client, url),
      connections: async () => (run.connections = await ex.streams.connections(PATH, run.tag)),
      mark: (kind, from, to, text) => run.marks.push({ kind, from, to, text }),
      note: (text) => (run.note = text),
      result: (facts) => Object.assign(run.facts, facts),
    };
    let polling = false;
    const live = setInterval(() => {
      showLive(run);
      if (polling) return;
      polling = true;
      ctx.connections().catch(() => {}).finally(() => ((polling = false), draw()));
    }, 250);
    try {
      await ep.run(ctx);
    } catch (error) {
      run.error = error.message;
    } finally {
      run.stream?.close();
      run.t1 = Date.now();
      clearInterval(live);
      await sleep(200); // the server logs the close
      await ctx.connections().catch(() => {});
      Object.assign(run.facts, { refused: run.connections.filter((c) => c.outcome !== "accepted").length, accepted: run.connections.filter((c) => c.outcome === "accepted").length });
      current = null;
      showLive(run);
      draw();
      showResults(run);
    }
    return run;
  }

  async function runAll(list) {
    for (const b of buttons) b.disabled = true;
    $("stream-panel").dataset.running = "true";
    try {
      for (const ep of list) await runEpisode(ep);
    } finally {
      for (const b of buttons) b.disabled = false;
      $("stream-panel").dataset.running = "false";
      $("stream-panel").dataset.done = [...runs.keys()].join(" ");
    }
  }

  buttons[0].addEventListener("click", () => runAll(episodes));
  for (const b of buttons.slice(1)) b.addEventListener("click", () => runAll(episodes.filter((ep) => ep.id === b.value)));
  $("stream-episode").addEventListener("change", showRecords);
  return { runAll, get current() { return current; } };
}
