// A client's redaction, as its records and messages redact: the core's built-in names and the
// caller's, and the names its RegExps match (tested here, in the glue).

/** `text` (a URL when `url`) redacted as the client `c` redacts. */
export function redact(c, text, url) {
  const extra = c.patterns.length > 0 ? matchedNames(c, text) : "";
  return c.core.clients.redact(c.handle, text, url, extra);
}

/** The names of `text`'s query parameters that the caller's RegExps match, NUL-separated. */
export function matchedNames(c, text) {
  return c.core.clients.parameterNames(text).filter((name) => name !== "" && c.patterns.some((p) => matches(p, name))).join("\0");
}

/** A pattern that throws counts as a match: when in doubt, redact. */
function matches(pattern, name) {
  try {
    return pattern.test(name);
  } catch {
    return true;
  }
}
