// A RetryClient's part in the core (src/abi/client.rs): its policy, draws and secret names, and
// the redaction it applies.

import { invalid } from "./instance.js";
import { encode } from "./wire.js";

export function clientsOf(mem) {
  const x = mem.x;
  return {
    /** A client from its options (RegExps in `redact` cross as such) and a seed; its handle.
     * @throws {TypeError | RangeError} naming the field. */
    create(options, entropy) {
      const { text, numbers } = encode(options, true);
      mem.args([], numbers);
      const [len] = mem.put([text]);
      const handle = x.rl_client_new(len, entropy);
      if (handle === 0) throw invalid(mem, "RetryClient");
      return handle;
    },
    free: (handle) => x.rl_client_free(handle),
    /** `text` (a URL when `url`) redacted as client `handle` redacts, with `extra` more names. */
    redact(handle, text, url, extra = "") {
      const [len, extraLen] = mem.put([text, extra]);
      x.rl_redact(handle, len, url ? 1 : 0, extraLen);
      return mem.text();
    },
    /** The decoded names of the query parameters in `text`. */
    parameterNames(text) {
      const [len] = mem.put([text]);
      x.rl_parameter_names(len);
      return mem.text().split("\0");
    },
  };
}
