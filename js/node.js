// Node entry (also Bun and Deno): the wasm module's bytes come inlined (deflated) in a module, not read from
// a file, so that the entry works wherever a bundler moves it (a Next.js server render, esbuild
// --platform=node) and Deno needs no --allow-read; compiled synchronously, at import.
import { wasmBytes } from "../pkg/server-inline.cjs";
import { assemble } from "./api/assemble.js";
import { defineStream, defineWorksheet, load } from "./api/server-modules.js";
import { coordinator } from "./platform/coordinator.js";
import { fleet } from "./api/fleet.js";

const module = new WebAssembly.Module(wasmBytes());

export const { RetryClient, Budget, RetryError, replay } = assemble(new WebAssembly.Instance(module, {}), { sharing: { coordinator, redis: fleet }, load, defineStream, defineWorksheet });
export { staleness } from "./platform/kept.js";
