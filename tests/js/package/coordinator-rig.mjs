// workerd with two flooding worker services (each its own isolate) and a third that hosts the
// package's BudgetCoordinator Durable Object on local disk, all from the installed npm tarball
// (workerd-harness.mjs). Shared by workerd-coordinator.test.mjs and bench/coordinator.mjs.
//
//   const rig = await startCoordinatorRig();   // { dir, mock, worker, close() }
//   await rig.worker.call("/w1/flood", {...}); // the front worker routes /w1 and /w2
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { capnpModules, startPackageInWorkerd, workerdModules } from "./workerd-harness.mjs";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "workerd-coordinator");

function config(dir) {
  const disk = join(dir, "do-storage");
  mkdirSync(disk, { recursive: true });
  const flood = capnpModules(dir, join(fixtures, "worker.js"));
  copyFileSync(join(fixtures, "front.js"), join(dir, "src", "front.js"));
  // The coordinator's service: its worker (src/coordinator.js) and the package's durable-object
  // entry, whose wasm is the budget alone, under their names in the package.
  const coordinator = capnpModules(dir, join(fixtures, "coordinator.js"), ["js/durable-object.js"])
    .replace('embed "src/worker.js"', 'embed "src/coordinator.js"');
  copyFileSync(join(fixtures, "coordinator.js"), join(dir, "src", "coordinator.js"));
  copyFileSync(join(fixtures, "worker.js"), join(dir, "src", "worker.js"));
  const doModules = workerdModules(join(dir, "node_modules", "retryline"), ["js/durable-object.js"]).modules;
  assert.deepEqual([...doModules].filter(([, k]) => k === "wasm").map(([p]) => p), ["pkg/authority.wasm"], "the Durable Object ships its budget's wasm alone");
  const isolate = (name) => `const ${name} :Workerd.Worker = (
  modules = ${flood},
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet",
  bindings = [ (name = "RETRY_BUDGET", durableObjectNamespace = (className = "BudgetCoordinator", serviceName = "coordinator")) ],
);
`;
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "front", worker = .front),
    (name = "w1", worker = .w1),
    (name = "w2", worker = .w2),
    (name = "coordinator", worker = .coordinator),
    (name = "internet", network = (allow = ["public", "private", "local"])),
    (name = "do-disk", disk = (path = ${JSON.stringify(disk)}, writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "front") ],
);

const front :Workerd.Worker = (
  modules = [ (name = "front.js", esModule = embed "src/front.js") ],
  compatibilityDate = "2025-09-01",
  bindings = [ (name = "W1", service = "w1"), (name = "W2", service = "w2") ],
);

${isolate("w1")}
${isolate("w2")}
const coordinator :Workerd.Worker = (
  modules = ${coordinator},
  compatibilityDate = "2025-09-01",
  durableObjectNamespaces = [ (className = "BudgetCoordinator", uniqueKey = "retryline-budget-coordinator-test") ],
  durableObjectStorage = (localDisk = "do-disk"),
);
`;
}

export const startCoordinatorRig = () => startPackageInWorkerd(config);
