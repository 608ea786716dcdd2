# Plain workerd (no Wrangler): `npx workerd serve config.capnp`, from a project where
# `npm install retryline` put the package in node_modules/. workerd resolves no packages, so the
# package's files are listed as modules, named so that `import … from "retryline"` in
# js/worker.js lands on its workerd entry and that entry's own relative imports resolve.
# `npx retryline workerd-modules` prints the package's lines of that list for the version installed:
# paste them again after each upgrade (a module a new version adds is otherwise missing).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .proxy),
    # workerd's default outbound network reaches public addresses only: a fetch to 127.0.0.1 or
    # a private address fails ("network-error" in the records) unless allowed here.
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);

const proxy :Workerd.Worker = (
  modules = [
    (name = "js/worker.js", esModule = embed "worker.js"), # your worker: it imports "retryline"
    (name = "js/retryline", esModule = embed "node_modules/retryline/js/workerd.js"),
    (name = "pkg/server.wasm", wasm = embed "node_modules/retryline/pkg/server.wasm"),
    (name = "js/api/assemble.js", esModule = embed "node_modules/retryline/js/api/assemble.js"),
    (name = "js/core/index.js", esModule = embed "node_modules/retryline/js/core/index.js"),
    (name = "js/core/instance.js", esModule = embed "node_modules/retryline/js/core/instance.js"),
    (name = "js/core/wire.js", esModule = embed "node_modules/retryline/js/core/wire.js"),
    (name = "js/platform/describe.js", esModule = embed "node_modules/retryline/js/platform/describe.js"),
    (name = "js/platform/kept.js", esModule = embed "node_modules/retryline/js/platform/kept.js"),
    (name = "js/core/calls.js", esModule = embed "node_modules/retryline/js/core/calls.js"),
    (name = "js/core/share.js", esModule = embed "node_modules/retryline/js/core/share.js"),
    (name = "js/core/clients.js", esModule = embed "node_modules/retryline/js/core/clients.js"),
    (name = "js/core/budgets.js", esModule = embed "node_modules/retryline/js/core/budgets.js"),
    (name = "js/core/replay.js", esModule = embed "node_modules/retryline/js/core/replay.js"),
    (name = "js/core/streams.js", esModule = embed "node_modules/retryline/js/core/streams.js"),
    (name = "js/api/as-fetch-install.js", esModule = embed "node_modules/retryline/js/api/as-fetch-install.js"),
    (name = "js/api/budget.js", esModule = embed "node_modules/retryline/js/api/budget.js"),
    (name = "js/platform/clock.js", esModule = embed "node_modules/retryline/js/platform/clock.js"),
    (name = "js/api/invalid.js", esModule = embed "node_modules/retryline/js/api/invalid.js"),
    (name = "js/api/retry-client.js", esModule = embed "node_modules/retryline/js/api/retry-client.js"),
    (name = "js/platform/request.js", esModule = embed "node_modules/retryline/js/platform/request.js"),
    (name = "js/platform/race.js", esModule = embed "node_modules/retryline/js/platform/race.js"),
    (name = "js/platform/response.js", esModule = embed "node_modules/retryline/js/platform/response.js"),
    (name = "js/executor/beyond.js", esModule = embed "node_modules/retryline/js/executor/beyond.js"),
    (name = "js/executor/call.js", esModule = embed "node_modules/retryline/js/executor/call.js"),
    (name = "js/executor/coalesced.js", esModule = embed "node_modules/retryline/js/executor/coalesced.js"),
    (name = "js/platform/carry.js", esModule = embed "node_modules/retryline/js/platform/carry.js"),
    (name = "js/platform/telemetry.js", esModule = embed "node_modules/retryline/js/platform/telemetry.js"),
    (name = "js/api/telemetry-options.js", esModule = embed "node_modules/retryline/js/api/telemetry-options.js"),
    (name = "js/api/budget-watch.js", esModule = embed "node_modules/retryline/js/api/budget-watch.js"),
    (name = "js/platform/metrics.js", esModule = embed "node_modules/retryline/js/platform/metrics.js"),
    (name = "js/platform/spans.js", esModule = embed "node_modules/retryline/js/platform/spans.js"),
    (name = "js/executor/watch.js", esModule = embed "node_modules/retryline/js/executor/watch.js"),
    (name = "js/platform/attempt.js", esModule = embed "node_modules/retryline/js/platform/attempt.js"),
    (name = "js/platform/store-call.js", esModule = embed "node_modules/retryline/js/platform/store-call.js"),
    (name = "js/platform/observers.js", esModule = embed "node_modules/retryline/js/platform/observers.js"),
    (name = "js/executor/drive.js", esModule = embed "node_modules/retryline/js/executor/drive.js"),
    (name = "js/executor/share.js", esModule = embed "node_modules/retryline/js/executor/share.js"),
    (name = "js/api/redaction.js", esModule = embed "node_modules/retryline/js/api/redaction.js"),
    (name = "js/api/families.js", esModule = embed "node_modules/retryline/js/api/families.js"),
    (name = "js/api/predicate.js", esModule = embed "node_modules/retryline/js/api/predicate.js"),
    (name = "js/api/options.js", esModule = embed "node_modules/retryline/js/api/options.js"),
    (name = "js/platform/store-methods.js", esModule = embed "node_modules/retryline/js/platform/store-methods.js"),
    (name = "js/api/retry-error.js", esModule = embed "node_modules/retryline/js/api/retry-error.js"),
    (name = "js/api/server-modules.js", esModule = embed "node_modules/retryline/js/api/server-modules.js"),
    (name = "js/api/as-fetch.js", esModule = embed "node_modules/retryline/js/api/as-fetch.js"),
    (name = "js/executor/stream.js", esModule = embed "node_modules/retryline/js/executor/stream.js"),
    (name = "js/platform/socket.js", esModule = embed "node_modules/retryline/js/platform/socket.js"),
    (name = "js/platform/page-signals.js", esModule = embed "node_modules/retryline/js/platform/page-signals.js"),
    (name = "js/platform/ws-url.js", esModule = embed "node_modules/retryline/js/platform/ws-url.js"),
    (name = "js/api/worksheet.js", esModule = embed "node_modules/retryline/js/api/worksheet.js"),
    (name = "js/api/stream.js", esModule = embed "node_modules/retryline/js/api/stream.js"),
    (name = "js/platform/coordinator.js", esModule = embed "node_modules/retryline/js/platform/coordinator.js"),
  ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet",
  bindings = [ (name = "UPSTREAM", text = "https://api.binance.com") ],
);
