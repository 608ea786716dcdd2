// The wasm core behind plain exports (src/abi): strings go in as UTF-8 in its input area,
// numbers as numbers, option values in the wire form (./wire.js); answers come back through
// its result slot — a few numbers and a UTF-8 string. The module imports nothing, so no
// JavaScript runs while wasm is on the stack: whatever user code throws is caught out here.

import { encode } from "./wire.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The length that says a string is absent (src/abi/io.rs ABSENT). */
export const ABSENT = 0xffffffff;

/** The core of one instance, bound once: its exports, and what moves strings in and out. */
export function bind(instance) {
  const x = instance.exports;
  const memory = x.memory;
  const slot = x.rl_slot();
  let buffer = null;
  let bytes;
  let words;
  let floats;
  let inputAt = 0;
  let inputRoom = 0;
  /** Views of the current memory (a grown memory has a new buffer; the old views read nothing). */
  const fresh = () => {
    if (buffer !== memory.buffer) {
      buffer = memory.buffer;
      bytes = new Uint8Array(buffer);
      words = new Uint32Array(buffer);
      floats = new Float64Array(buffer);
    }
  };
  /** Room for `n` more bytes of input, keeping what is written: the area may move. */
  const room = (used, n) => {
    if (used + n > inputRoom) {
      inputRoom = Math.max(64, (used + n) * 2);
      inputAt = x.rl_input(inputRoom);
    }
    fresh();
  };

  const core = {
    x,
    /** Writes strings one after another into the input area; their byte lengths (ABSENT for
     * null/undefined) go into `lengths`, which is returned. */
    put(strings, lengths = new Array(strings.length)) {
      let used = 0;
      for (let i = 0; i < strings.length; i++) {
        const s = strings[i];
        if (s === undefined || s === null) {
          lengths[i] = ABSENT;
          continue;
        }
        room(used, s.length * 3);
        const { written } = encoder.encodeInto(s, bytes.subarray(inputAt + used, inputAt + inputRoom));
        lengths[i] = written;
        used += written;
      }
      return lengths;
    },
    /** Writes the numbers of a wire value into the numbers area. */
    putNumbers(list) {
      if (list.length === 0) return;
      const at = x.rl_numbers(list.length);
      fresh();
      floats.set(list, at >>> 3);
    },
    /** Writes `strings`, then option values in the wire form (null or undefined: absent), as one
     * call's input; their byte lengths, in that order. */
    putValues(values, strings = []) {
      const texts = [...strings];
      const numbers = [];
      for (const value of values) {
        if (value === null || value === undefined) {
          texts.push(undefined);
          continue;
        }
        const wire = encode(value);
        texts.push(wire.text);
        for (const n of wire.numbers) numbers.push(n);
      }
      core.putNumbers(numbers);
      return core.put(texts);
    },
    /** The string the last call handed out. */
    text() {
      fresh();
      const at = words[slot >>> 2];
      return decoder.decode(bytes.subarray(at, at + words[(slot >>> 2) + 1]));
    },
    /** The last call's number `i`. */
    number(i) {
      fresh();
      return floats[(slot >>> 3) + 1 + i];
    },
    /** The JSON the last call handed out, parsed. */
    json() {
      return JSON.parse(core.text());
    },
  };
  core.put([""]);
  x.rl_names?.();
  core.names = x.rl_names ? core.json() : null;
  // Each name's code: its index in the core's list.
  core.code = {};
  for (const [table, list] of Object.entries(core.names ?? {})) core.code[table] = Object.fromEntries(list.map((name, i) => [name, i]));
  return core;
}

/** `TypeError` or `RangeError` from a call that returned 0 with an invalid option; `context` names where it was given. */
export function invalid(core, context) {
  const message = `${context}: ${core.text()}`;
  return core.number(0) === 1 ? new RangeError(message) : new TypeError(message);
}
