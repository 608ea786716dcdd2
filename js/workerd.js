// workerd / Cloudflare Workers entry: the runtime compiles imported .wasm modules (compiling from
// bytes at run time is not allowed there).
import module from "../pkg/server.wasm";
import { assemble } from "./api/assemble.js";
import { defineStream, defineWorksheet, load } from "./api/server-modules.js";
import { coordinator } from "./platform/coordinator.js";

export const { RetryClient, Budget, RetryError, replay } = assemble(new WebAssembly.Instance(module, {}), { sharing: { coordinator }, load, defineStream, defineWorksheet });
export { staleness } from "./platform/kept.js";
