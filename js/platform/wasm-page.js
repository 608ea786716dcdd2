// Compiling the wasm core on a page: from the asset a bundler emitted, else from the inlined bytes;
// and, where a Content-Security-Policy forbids compiling it, an error that says which source to allow.

/** The instance of the wasm at `url`, or of `inlined()`'s bytes where `url` cannot be served.
 * `emitted` is false when no bundler rewrote the asset URL and the entry itself was moved into a
 * bundle (esbuild, Rollup, Bun): nothing was copied there, so the inlined bytes are used at once. */
export async function instantiatePage(url, emitted, inlined) {
  try {
    // A module read from disk (Node, Deno) has no server to fetch its asset from.
    if (emitted && url.protocol !== "file:") {
      try {
        return (await WebAssembly.instantiateStreaming(fetch(url), {})).instance;
      } catch (error) {
        if (blockedByPolicy(error)) throw error;
        // A server that does not say application/wasm: compiled from its bytes instead.
        const response = await fetch(url).catch(() => null);
        if (response?.ok) return (await WebAssembly.instantiate(await response.arrayBuffer(), {})).instance;
      }
    }
    // The asset is not where the entry expects it: the bytes come in a module of their own, which
    // bundlers that emitted the asset split off and never load.
    const { wasmBytes } = await inlined();
    return (await WebAssembly.instantiate(wasmBytes(), {})).instance;
  } catch (error) {
    throw named(error);
  }
}

/** A synchronous instance of `bytes` (the inline entries), with the same error for a strict CSP. */
export function instantiateNow(bytes) {
  try {
    return new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
  } catch (error) {
    throw named(error);
  }
}

const POLICY = /content security policy|csp|unsafe-eval|code generation/i;

function blockedByPolicy(error) {
  return error instanceof Error && POLICY.test(error.message);
}

function named(error) {
  if (!blockedByPolicy(error)) return error;
  return new Error(
    "retryline: this page's Content-Security-Policy does not allow WebAssembly. Add 'wasm-unsafe-eval' " +
      "to script-src (Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval'), or import " +
      '"retryline/csp", the same core compiled to JavaScript. The platform said: ' + error.message,
    { cause: error },
  );
}
