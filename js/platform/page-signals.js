// What a browser page says of itself, for a stream: offline, online, hidden, visible, and a wake
// (back from the back/forward cache, or from being frozen). Where there is no page (Node, workerd,
// a worker), nothing is heard and nothing changes.

/** Tells `tell(signal)` ("offline" | "online" | "hidden" | "visible" | "wake") what the page says,
 * beginning with where it is now (online or offline, hidden); returns what stops listening. */
export function listenToPage(tell) {
  let page, doc;
  try {
    page = globalThis;
    doc = globalThis.document;
    if (typeof page.addEventListener !== "function" || doc === undefined || doc === null) return () => {};
  } catch {
    return () => {};
  }
  const on = [
    [page, "offline", () => tell("offline")],
    [page, "online", () => tell("online")],
    [page, "pageshow", (event) => event?.persisted === true && tell("wake")],
    [doc, "visibilitychange", () => tell(read(() => doc.visibilityState) === "hidden" ? "hidden" : "visible")],
    [doc, "resume", () => tell("wake")],
  ];
  for (const [target, type, f] of on) {
    try {
      target.addEventListener(type, f);
    } catch {}
  }
  // Where the network is now: a stream begun again after a stop may have missed a change.
  const online = read(() => globalThis.navigator?.onLine);
  if (typeof online === "boolean") tell(online ? "online" : "offline");
  if (read(() => doc.visibilityState) === "hidden") tell("hidden");
  return () => {
    for (const [target, type, f] of on) {
      try {
        target.removeEventListener(type, f);
      } catch {}
    }
  };
}

/** A getter of the page's that may throw (a test's fakes). */
function read(get) {
  try {
    return get();
  } catch {
    return undefined;
  }
}
