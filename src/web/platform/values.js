// Guarded reads and calls of the caller's values (options, stores, queries): the only JavaScript
// that runs the caller's code on wasm's behalf, bound by values.rs. Self-contained, as every
// snippet of src/web/platform is (wasm-bindgen copies each file alone).
//
// Nothing here throws: a throw becomes the FAILED value, and the thrown value waits in `thrown`
// for taken(). Why not wasm-bindgen's `catch` alone: with reference types, a `catch` import that
// returns a value leaks one externref slot every time it throws, so 10 000 hostile getters would
// grow memory.
const FAILED = Object.freeze({ failed: true });
let thrown;
// Where wasm reads "the last guarded call threw" (a word in its memory): one store here
// saves wasm a crossing to compare every result with FAILED.
let memory;
let flagIndex = -1;
let flags;

export function watchFailures(wasmMemory, at) {
  memory = wasmMemory;
  flagIndex = at >>> 2;
  flags = new Int32Array(memory.buffer);
}

function fail(error) {
  thrown = error;
  if (flagIndex >= 0) {
    // A grown memory has a new buffer; views of the old one read nothing.
    if (flags.buffer !== memory.buffer) flags = new Int32Array(memory.buffer);
    flags[flagIndex] = 1;
  }
  return FAILED;
}

export function failed() {
  return FAILED;
}

export function taken() {
  const error = thrown;
  thrown = undefined;
  return error;
}

export function get(target, key) {
  try {
    return Reflect.get(target, key);
  } catch (e) {
    return fail(e);
  }
}

export function call(f, self, a, b) {
  try {
    return Reflect.apply(f, self, arguments.length > 3 ? [a, b] : arguments.length > 2 ? [a] : []);
  } catch (e) {
    return fail(e);
  }
}

export function construct(c, a, b) {
  try {
    return Reflect.construct(c, arguments.length > 2 ? [a, b] : [a]);
  } catch (e) {
    return fail(e);
  }
}

export function keys(target) {
  try {
    return Object.keys(target);
  } catch (e) {
    return fail(e);
  }
}

export function isArray(value) {
  try {
    return Array.isArray(value);
  } catch (e) {
    return fail(e);
  }
}

export function define(target, key, value) {
  try {
    return Reflect.defineProperty(target, key, { value, enumerable: true });
  } catch (e) {
    return fail(e);
  }
}

export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return fail(e);
  }
}

// 53 random bits (a seed for jitter), or -1 where there is no crypto.getRandomValues.
export function random() {
  try {
    const words = crypto.getRandomValues(new Uint32Array(2));
    return words[0] * 2 ** 21 + (words[1] >>> 11);
  } catch {
    return -1;
  }
}
