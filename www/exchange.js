// The mock exchange as the dashboard's panels use it. No panel resets it: /__mock/reset clears
// every route's scripts and request log and ends every stream connection, so one panel's reset
// erased what another panel was in the middle of (the worked example read "1 wire request" and a
// success when the widgets started beside it). Each run takes routes of its own instead
// (`route(panel, path)`): the mock scripts and logs REST routes per path, so a fresh path starts
// with an empty queue and an empty log, whatever else runs. WebSocket connections carry their
// run in the query (`?run=`), which the server's connection log keeps.

// Two tabs on one mock exchange must not share routes either.
const tab = Math.random().toString(36).slice(2, 6);
let runs = 0;

/** The exchange at `url` (http://127.0.0.1:PORT). */
export function mockExchange(url) {
  const post = async (path, body) => {
    const res = await fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`the mock refused ${path}: ${await res.text()}`);
    return res.json();
  };
  const ex = {
    url,
    ws: url.replace(/^http/, "ws"),
    /** A run's own copy of `path`: `/<panel>/<tab>-<n><path>`, never scripted or requested before. */
    route: (panel, path) => `/${panel}/${tab}-${++runs}${path}`,
    /** A tag for one run's WebSocket connections (their `?run=`). */
    runTag: (panel) => `${panel}-${tab}-${++runs}`,
    /** Queues `behaviours` for `path` (and `method`, else any). */
    script: (path, behaviours, method) => post("/__mock/script", { path, method, behaviours }),
    requests: async (path, method) => (await fetch(`${url}/__mock/requests?path=${encodeURIComponent(path)}${method ? `&method=${method}` : ""}`)).json(),
    /** How many requests reached `path` (those of them `where` picks). */
    wire: async (path, method, where = () => true) => (await ex.requests(path, method)).filter(where).length,
    streams: {
      script: (path, behaviours) => post("/__mock/streams/script", { path, behaviours }),
      refuse: (ms, status, retryAfter) => post("/__mock/streams/refuse", { ms, status, retryAfter }),
      drop: (code) => post("/__mock/streams/drop", { code }),
      /** The server's log of upgrade attempts on `path` tagged `run`: { id, at, outcome, status, closedAt, closeCode }. */
      connections: async (path, run) => {
        const log = await (await fetch(`${url}/__mock/streams/connections?path=${encodeURIComponent(path)}`)).json();
        return log.filter((c) => c.query.run === run);
      },
    },
  };
  return ex;
}
