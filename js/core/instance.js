// The wasm core's memory as the facade (./index.js) uses it: strings go in as UTF-8 in its input
// area, numbers in its numbers area (a call's arguments first, then an option value's numbers),
// and answers come back through its result slot — a few numbers and a UTF-8 string. The module
// imports nothing, so no JavaScript runs while wasm is on the stack. Only js/core/ reads this.

import { encode } from "./wire.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The length that says a string is absent (src/abi/io.rs ABSENT). */
export const ABSENT = 0xffffffff;
/** The length that says a response hid its Retry-After (src/abi/mod.rs UNREADABLE). */
export const UNREADABLE = 0xfffffffe;
/** How many numbers the slot holds; the last is when a machine's timer must fire. */
const SLOT_NUMBERS = 16;

/** The memory of one instance, bound once. */
export function memoryOf(instance) {
  const x = instance.exports;
  const memory = x.memory;
  const slot = x.rl_slot();
  let buffer = null;
  let bytes;
  let words;
  let floats;
  let inputAt = 0;
  let inputRoom = 0;
  let numbersAt = 0;
  let numbersRoom = 0;
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

  const mem = {
    x,
    /** Writes strings one after another into the input area; their byte lengths (ABSENT for
     * null/undefined), in `lengths`, which is returned. */
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
    /** Writes the numeric arguments of a call into the core, then `more` (an option value's numbers). */
    args(list, more) {
      const n = list.length + (more === undefined ? 0 : more.length);
      if (n > numbersRoom) {
        numbersRoom = Math.max(32, n * 2);
        numbersAt = x.rl_numbers(numbersRoom) >>> 3;
      }
      fresh();
      floats.set(list, numbersAt);
      if (more !== undefined && more.length > 0) floats.set(more, numbersAt + list.length);
    },
    /** Writes `values` in the wire form after `strings` (null or undefined: absent); the lengths of
     * all, and the values' numbers, which follow the numeric arguments. */
    putValues(strings, values) {
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
      return { lengths: mem.put(texts), numbers };
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
    /** When the machine of the last call wants its timer (-1: never). */
    wakeAt() {
      return mem.number(SLOT_NUMBERS - 1);
    },
    /** The JSON the last call handed out, parsed. */
    json() {
      return JSON.parse(mem.text());
    },
  };
  mem.put([""]);
  return mem;
}

/** Reads an effect of a type this entry does not know: it throws. */
export function unknownEffect(mem, type) {
  throw new Error(`retryline: the core handed out an effect this build does not know (${type})`);
}

/** `TypeError` or `RangeError` from a call that returned 0 with an invalid option; `context` names where it was given. */
export function invalid(mem, context) {
  const message = `${context}: ${mem.text()}`;
  return mem.number(0) === 1 ? new RangeError(message) : new TypeError(message);
}
