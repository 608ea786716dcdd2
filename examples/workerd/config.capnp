# Plain workerd (no Wrangler): `npx workerd serve config.capnp`, from a project where
# `npm install retryline` put the package in node_modules/. workerd resolves no packages, so the
# package's files are listed as modules, named so that `import … from "retryline"` in
# js/worker.js lands on its workerd entry and that entry's own relative imports resolve.
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
    (name = "js/worker.js", esModule = embed "worker.js"),
    (name = "js/retryline", esModule = embed "node_modules/retryline/js/workerd.js"),
    (name = "js/retry-error.js", esModule = embed "node_modules/retryline/js/retry-error.js"),
    (name = "js/as-fetch.js", esModule = embed "node_modules/retryline/js/as-fetch.js"),
    (name = "js/guard.js", esModule = embed "node_modules/retryline/js/guard.js"),
    (name = "pkg/retryline.js", esModule = embed "node_modules/retryline/pkg/retryline.js"),
    (name = "pkg/retryline_bg.wasm", wasm = embed "node_modules/retryline/pkg/retryline_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet",
  bindings = [ (name = "UPSTREAM", text = "https://api.binance.com") ],
);
