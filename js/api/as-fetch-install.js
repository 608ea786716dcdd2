// client.asFetch(defaults): the method, which reads the defaults at once and returns the platform
// fetch signature; each call runs in api/as-fetch.js, which an entry may load only when first needed.

/** The defaults, copied once: `describe` apart, the rest are call options. */
function readDefaults(defaults) {
  if (defaults === undefined || defaults === null) return { options: {}, describe: undefined };
  if (typeof defaults !== "object") throw new TypeError(`asFetch: defaults must be an object, not ${typeof defaults}`);
  const options = {};
  let describe;
  for (const key of Object.keys(defaults)) {
    let value;
    try {
      value = defaults[key];
    } catch (error) {
      throw new TypeError(`asFetch: defaults.${key} could not be read: ${error}`, { cause: error });
    }
    if (key === "describe") describe = value;
    else options[key] = value;
  }
  if (describe !== undefined && typeof describe !== "function") {
    throw new TypeError(`asFetch: defaults.describe must be a function, not ${describe === null ? "null" : typeof describe}`);
  }
  return { options, describe };
}

/** Adds `asFetch` to the client class of an entry; `load()` gives the module that runs the calls. */
export function installAsFetch(RetryClient, RetryError, load) {
  /**
   * @param {object} [defaults] call options for every request, plus `describe(request)`.
   * @returns {(input: Request | string | URL, init?: RequestInit & { timeout?: number }) => Promise<Response>}
   */
  function asFetch(defaults) {
    const client = this;
    const fixed = readDefaults(defaults);
    return async function retrylineFetch(input, init) {
      const calledAt = performance.now();
      const { call } = await load();
      return call(client, fixed, RetryError, calledAt, input, init);
    };
  }
  Object.defineProperty(RetryClient.prototype, "asFetch", { value: asFetch, writable: true, configurable: true });
}
