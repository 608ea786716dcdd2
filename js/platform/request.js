// The request as the caller gave it, ready to be sent again. A `Request` is built once per call
// (it throws as fetch would, and it is what a wrapped fetch receives). Without a body, every attempt
// calls fetch(template, { signal }). A body can be read only once, so it is buffered when the
// operation starts, and each attempt gets a Request of its own with that buffer and its signal.
// The platform's own fetch, given a bare absolute URL and no init, gets the URL itself: it builds
// its Request anyway, and a second one of ours cost 4 µs and 1.7 KB per call.

import { FULFILLED, REJECTED } from "./race.js";

/** Whether `new URL(url).href` would be `url` itself, told without a parser for the plain form:
 * lowercase scheme and host, no user-info, no default or odd port, a path, no dot segments, no
 * fragment, only characters the parser keeps (a `false` says nothing). */
export function isCanonicalHttpUrl(url) {
  const m = /^(https?):\/\/([a-z0-9.-]+)(?::([0-9]{1,5}))?(\/[A-Za-z0-9\-._~!$&()*+,;=:/?%]*)$/.exec(url);
  if (m === null) return false;
  const [, scheme, host, port, tail] = m;
  const labels = host.split(".");
  let octets = 0;
  for (const label of labels) {
    if (label === "" || label.startsWith("xn--")) return false;
    if (/^(0|[1-9][0-9]{0,2})$/.test(label) && Number(label) < 256) octets++;
  }
  // A host that ends in a number is an IPv4 address to the parser: only its shortest form is plain.
  if (/^[0-9]/.test(labels[labels.length - 1]) && !(labels.length === 4 && octets === 4)) return false;
  if (port !== undefined && (!/^[1-9][0-9]*$/.test(port) || Number(port) > 65535 || port === (scheme === "http" ? "80" : "443"))) return false;
  if (/%2e/i.test(tail)) return false;
  const path = tail.split("?")[0];
  return !path.split("/").some((segment) => segment.startsWith("."));
}

// The answers for the URLs seen last: a dashboard polls the same few URLs over and over.
const canonical = new Map();

/** The serialized form of an absolute http(s) URL string without credentials, or undefined (left
 * to a Request, so that it throws or resolves as fetch would). */
function absoluteUrl(input) {
  if (typeof input !== "string") return undefined;
  let plain = canonical.get(input);
  if (plain === undefined) {
    plain = !input.includes("@") && isCanonicalHttpUrl(input);
    if (canonical.size >= 256) canonical.clear();
    canonical.set(input, plain);
  }
  if (plain) return input;
  if (!/^https?:\/\//i.test(input) || input.includes("@")) return undefined;
  try {
    return new URL(input).href;
  } catch {
    return undefined;
  }
}

/** The schemes the platform's fetch may send (the Fetch standard's); a custom fetch may take others. */
const FETCH_SCHEMES = /^(https?|data|blob|about|file):/i;

/** What a `Request` made from a bare URL has: how a bare URL is sent. */
const REQUEST_DEFAULTS = { credentials: "same-origin", mode: "cors", cache: "default", redirect: "follow", referrerPolicy: "" };

export class Template {
  /** Reads the caller's request; throws as fetch would. `bare` lets a bare URL go without a
   * Request (the platform's own fetch only). */
  constructor(input, init, bare, extra = null) {
    this.request = null;
    this.body = null;
    /** What of the caller's init each attempt's fetch gets besides the Request (`cf`, `dispatcher`). */
    this.extra = extra;
    if (bare && (init === undefined || init === null)) {
      const url = absoluteUrl(input);
      if (url !== undefined) {
        this.input = input;
        this.method = "GET";
        this.url = url;
        return;
      }
    }
    const request = new Request(input, init);
    this.request = request;
    this.input = request;
    this.method = request.method;
    this.url = request.url;
    // The platform's fetch rejects any other scheme at once: so does the call, with nothing sent.
    if (bare && !FETCH_SCHEMES.test(this.url)) throw new TypeError(`fetch: ${this.url.split(":")[0]}: is not a scheme fetch can send (http, https, data, blob, about, file)`);
  }

  /** The signal the caller attached to the request or its init (a bare URL has none). */
  signal() {
    return this.request?.signal;
  }

  /** The request's headers, names and values NUL-separated, for the core's coalescing key
   * (undefined: they could not be read, and the request joins nothing). */
  headerFields() {
    try {
      const fields = [];
      for (const [name, value] of this.request?.headers ?? []) fields.push(name, value);
      // What else the platform sends by: another credentials mode is another request (a bare URL
      // is sent with a Request's defaults).
      const { credentials, mode, cache, redirect, referrerPolicy } = this.request ?? REQUEST_DEFAULTS;
      fields.push(":credentials", String(credentials), ":mode", String(mode), ":cache", String(cache), ":redirect", String(redirect), ":referrer-policy", String(referrerPolicy));
      return fields.join("\0");
    } catch {
      return undefined;
    }
  }

  hasBody() {
    return this.request !== null && this.request.body !== null;
  }

  /** Starts reading the body, once: `{ done, cancel }`, `done` resolving to `[FULFILLED]` (kept for
   * every attempt) or `[REJECTED, error]`. `cancel()` stops a stream that never ends (the call's
   * deadline came first) and releases it, as fetch would. */
  buffer() {
    const template = this;
    let reader = null;
    let cancelled = false;
    const read = async () => {
      try {
        reader = this.request.body.getReader();
      } catch (error) {
        return [REJECTED, error];
      }
      const chunks = [];
      let size = 0;
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch (error) {
          return [REJECTED, error];
        }
        if (cancelled) return [REJECTED, new DOMException("retryline: the call ended before its request body was read", "AbortError")];
        if (chunk.done) break;
        if (!(chunk.value instanceof Uint8Array)) return [REJECTED, new TypeError("the request body's stream gave a chunk that is not a Uint8Array")];
        chunks.push(chunk.value);
        size += chunk.value.byteLength;
      }
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      this.body = bytes;
      return [FULFILLED];
    };
    const done = read();
    return {
      done,
      cancel() {
        if (cancelled || template.body !== null) return;
        cancelled = true;
        try {
          reader?.cancel(new DOMException("retryline: the call ended before its request body was read", "AbortError")).catch(() => {});
          reader?.releaseLock();
        } catch {}
      },
    };
  }

  /** fetch's arguments for one attempt: the input and `{ signal }`, or, with a body, a fresh
   * Request that carries both (a wrapped fetch may read or clone it); with `traceparent` (its
   * span's W3C trace context), the request's headers and that one. */
  forAttempt(signal, traceparent) {
    const init = this.extra === null ? { signal } : { ...this.extra, signal };
    const headers = traceparent === undefined ? undefined : this.tracedHeaders(traceparent);
    if (headers !== undefined) init.headers = headers;
    if (this.body === null) return [this.input, init];
    const fresh = headers === undefined ? { signal, body: this.body } : { signal, body: this.body, headers };
    return [new Request(this.request, fresh), this.extra === null && headers === undefined ? undefined : init];
  }

  /** The request's headers with `traceparent` set (undefined if they cannot be copied). */
  tracedHeaders(traceparent) {
    try {
      const headers = new Headers(this.request?.headers);
      headers.set("traceparent", traceparent);
      return headers;
    } catch {
      return undefined;
    }
  }
}
