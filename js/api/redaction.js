// A client's redaction, as its records and messages redact: the core's built-in names and the
// caller's, and the names its RegExps match (tested here, in the glue).

/** `text` (a URL when `url`) redacted as the client `c` redacts, in `c`'s core. */
export function redact(c, text, url) {
  const { core } = c;
  const extra = c.patterns.length > 0 ? matchedNames(c, text) : "";
  const [len, extraLen] = core.put([text, extra]);
  core.x.rl_redact(c.handle, len, url ? 1 : 0, extraLen);
  return core.text();
}

/** The names of `text`'s query parameters that the caller's RegExps match, NUL-separated. */
export function matchedNames(c, text) {
  const { core } = c;
  const [len] = core.put([text]);
  core.x.rl_parameter_names(len);
  return core.text().split("\0").filter((name) => name !== "" && c.patterns.some((p) => matches(p, name))).join("\0");
}

/** A pattern that throws counts as a match: when in doubt, redact. */
function matches(pattern, name) {
  try {
    return pattern.test(name);
  } catch {
    return true;
  }
}
