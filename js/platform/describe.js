// What a thrown value says, as `Name: message (cause: …)`, read without calling its toString
// (which could run anything): the text a record, a message or a `cause` carries. Never throws.

/** The longest text taken from a thrown value: enough for any platform message. */
const MAX_DESCRIPTION = 400;

/** What kind of value this is, in the words of the core's messages ("a string", "an object"…). */
export function kind(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "undefined":
      return "undefined";
    case "boolean":
      return "a boolean";
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    case "bigint":
      return "a BigInt";
    default:
      return "an object";
  }
}

const read = (value, name) => {
  try {
    const v = value[name];
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
};

export function describe(thrown) {
  let text = "";
  let current = thrown;
  for (let depth = 0; depth < 3; depth++) {
    let part;
    if (typeof current === "string") part = current;
    else if (current !== null && (typeof current === "object" || typeof current === "function")) {
      const name = read(current, "name");
      const message = read(current, "message");
      if (name !== undefined && message) part = `${name}: ${message}`;
      else if (message) part = message;
      else if (name !== undefined) part = name;
      else if (depth === 0) part = kind(current);
    } else if (depth === 0) part = kind(current);
    if (part !== undefined) text += depth === 0 ? part : ` (cause: ${part})`;
    if (typeof current === "string" || current === null || typeof current !== "object") break;
    let cause;
    try {
      cause = current.cause;
    } catch {
      break;
    }
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  if (text.length > MAX_DESCRIPTION) text = `${text.slice(0, MAX_DESCRIPTION)}…`;
  return text;
}
