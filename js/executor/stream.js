// The stream executor (being moved onto the core's stream machine).
export function run() {
  throw new TypeError("stream: not in this build");
}
