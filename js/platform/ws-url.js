// A WebSocket URL as a stream takes it: absolute, ws:, wss:, http: or https: (read as ws:/wss:).

/** The URL as a ws:/wss: string. @throws {TypeError} naming what is wrong with it. */
export function readUrl(url, context = "stream: url") {
  let text;
  try {
    text = typeof url === "string" ? url : String(url);
  } catch (error) {
    throw new TypeError(`${context} could not be read as a string`, { cause: error });
  }
  let parsed;
  try {
    parsed = new URL(text);
  } catch {
    throw new TypeError(`${context} must be an absolute ws:, wss:, http: or https: URL`);
  }
  if (!["ws:", "wss:", "http:", "https:"].includes(parsed.protocol)) throw new TypeError(`${context} must be a ws:, wss:, http: or https: URL, got ${parsed.protocol}`);
  return parsed.href.replace(/^http/, "ws");
}

/** `protocols`' value: a string or an array of strings (a copy). @throws {TypeError} for others. */
export function readProtocols(value, context = "stream options: protocols") {
  if (typeof value === "string") return value;
  if (!Array.isArray(value) || !value.every((p) => typeof p === "string")) throw new TypeError(`${context} must be a string or an array of strings, got ${value === null ? "null" : typeof value}`);
  return [...value];
}
