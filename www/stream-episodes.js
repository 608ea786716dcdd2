// The stream panel's four episodes: each opens a live ticker (client.stream on the mock's
// /ws/ticker), does to it what an exchange does, and waits until the ticker is fresh again. The
// panel (stream.js) runs them and draws what the server logged; `ctx` is its side of each run:
//   ctx.ex           the mock exchange (exchange.js)
//   ctx.open(opts)   opens the episode's stream (the panel's options, then opts); resolves at its first tick
//   ctx.fresh(t)     resolves at the first tick after t (Unix ms)
//   ctx.back(t)      resolves once the stream has lost its connection after t and has a tick again: when it came
//   ctx.until(f, what, ms), ctx.sleep(ms)
//   ctx.read(url)    a REST read through the stream's own client (same budget, same scope): its status or RetryReason
//   ctx.connections() the server's log of this episode's upgrade attempts
//   ctx.mark(kind, from, to, text)  a span the chart shades (kind: "outage" | "ban" | "silent" | "cut")
//   ctx.note(text)   the episode's one-line result; ctx.result(facts) what the test may read
//   ctx.stream, ctx.t0, ctx.lastSeq, ctx.seqs (a Set)  the stream, the episode's start, the ticks seen
import { RetryError } from "retryline";

/** The panel's stream options (every episode): what the brief's demo makes visible in seconds. The
 * policy of its connection attempts is the family "ticker stream" (config.js). */
export const STREAM_OPTIONS = {
  minUptimeMs: 1000, // up 1 s: the outage is over, the next drop is a new one
  staleAfterMs: 1000, // no tick for 1 s: "stale"
  reconnectAfterStaleMs: 2500, // no tick for 2.5 s: the silent socket is replaced
};

const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const RESTART_MS = 3000;
const BAN_S = 3;
const SILENT_AFTER_MS = 1500;
const ROTATE_MS = 4000;

export const episodes = [
  {
    id: "restart",
    name: "Server restart",
    about: `The exchange restarts its stream servers: every connection is dropped (1012) and upgrades are refused (503) for ${s(RESTART_MS)}. ` +
      "The browser sees each refusal only as a failed connection, so the stream backs off (base 0.2 s, cap 1 s, full jitter) until one opens.",
    async run(ctx) {
      await ctx.open();
      await ctx.sleep(1200);
      const at = Date.now();
      await ctx.ex.streams.refuse(RESTART_MS, 503);
      await ctx.ex.streams.drop(1012);
      ctx.mark("outage", at, at + RESTART_MS, `restart: dropped, upgrades refused ${s(RESTART_MS)}`);
      const back = await ctx.back(at);
      await ctx.sleep(1200);
      const log = await ctx.connections();
      const refused = log.filter((c) => c.outcome !== "accepted").length;
      ctx.note(`${refused} upgrade${refused === 1 ? "" : "s"} refused at the server; a tick again ${s(back - at)} after the drop`);
    },
  },
  {
    id: "ban",
    name: "A 418 on REST",
    about: `A REST read through the stream's own client is answered 418 with Retry-After: ${BAN_S}: the IP is banned. The stream's scope is ` +
      "by default its URL's origin read as http:, which is the read's scope, so when the server then drops the stream the reconnect waits the ban out: no upgrade reaches the server before it ends.",
    async run(ctx) {
      await ctx.open();
      await ctx.sleep(1000);
      const path = ctx.ex.route("stream", "/api/v3/ticker/price");
      await ctx.ex.script(path, [{ status: 418, retryAfter: BAN_S }]);
      const at = Date.now();
      const outcome = await ctx.read(`${ctx.ex.url}${path}?symbol=BTCUSDT`);
      ctx.mark("ban", at, at + BAN_S * 1000, `418 on a REST read: the scope banned ${BAN_S} s`);
      await ctx.sleep(300);
      const dropAt = Date.now();
      await ctx.ex.streams.drop(1012);
      const back = await ctx.back(dropAt);
      await ctx.sleep(1200);
      const next = (await ctx.connections()).find((c) => c.at > dropAt);
      if (!next) throw new Error("no upgrade after the drop in the server's log");
      ctx.note(`the read: ${outcome}; the stream's next upgrade reached the server ${s(next.at - at)} after the 418`);
      ctx.result({ path, banAt: at, dropAt, backAt: back });
    },
  },
  {
    id: "silent",
    name: "A silent connection",
    about: `The server keeps the socket open but stops sending ${s(SILENT_AFTER_MS)} after it opens (a zombie). After ${s(STREAM_OPTIONS.staleAfterMs)} ` +
      `without a tick the stream says "stale"; after ${s(STREAM_OPTIONS.reconnectAfterStaleMs)} it closes the socket and opens another.`,
    async run(ctx) {
      await ctx.ex.streams.script("/ws/ticker", [{ action: "accept", silentAfterMs: SILENT_AFTER_MS }]);
      await ctx.open();
      await ctx.until(() => ctx.stream.state === "stale", "stale", 10_000);
      const staleAt = Date.now();
      const back = await ctx.fresh(staleAt);
      await ctx.sleep(1200);
      const [zombie] = await ctx.connections();
      const quiet = zombie.at + SILENT_AFTER_MS;
      ctx.mark("silent", quiet, zombie.closedAt ?? Date.now(), "server silent");
      ctx.note(`stale ${s(staleAt - quiet)} after the last tick, replaced ${s((zombie.closedAt ?? back) - quiet)} after it`);
    },
  },
  {
    id: "rotation",
    name: "The 24 h cut, in seconds",
    about: `Binance cuts every connection at 24 h; here at ${s(ROTATE_MS)} (rotateAfterMs). Make-before-break: the next connection is opened beside ` +
      "the old one and takes over when it delivers, so no tick is missed.",
    options: { rotateAfterMs: ROTATE_MS },
    async run(ctx) {
      await ctx.open();
      const from = ctx.lastSeq;
      const accepted = async () => (await ctx.connections()).filter((c) => c.outcome === "accepted").length;
      for (let n = 0; n < 3; n = await accepted()) {
        if (Date.now() - ctx.t0 > 20_000) throw new Error("no second rotation in 20 s");
        await ctx.sleep(250);
      }
      await ctx.sleep(1000);
      const log = (await ctx.connections()).filter((c) => c.outcome === "accepted");
      for (const c of log.slice(1)) ctx.mark("cut", c.at, c.at, "");
      const missed = ctx.lastSeq - from + 1 - [...ctx.seqs].filter((q) => q >= from).length;
      ctx.note(`${log.length - 1} rotations, each opened before the old one closed; ${missed} of ${ctx.lastSeq - from + 1} ticks missed`);
      ctx.result({ missed });
    },
  },
];

/** A REST read through `client` (one attempt: the family "stream's REST read"): its status, or the
 * RetryReason it stopped with. */
export async function read(client, url) {
  try {
    return String((await client.fetch(url)).status);
  } catch (error) {
    if (!(error instanceof RetryError)) throw error;
    return error.reason;
  }
}
