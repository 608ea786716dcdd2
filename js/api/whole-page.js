// The whole core of a page (keyed calls, reconciliation, streams), loaded by the browser entry when
// a call first needs it: its asset URL lives here, in a chunk of its own, so that bundlers count
// the file with this chunk and a page that only fetches downloads neither.
import { instantiatePage } from "../platform/wasm-page.js";

export function instantiateWhole() {
  const url = new URL("../../pkg/browser.wasm", import.meta.url);
  const emitted = import.meta.url.endsWith("/js/api/whole-page.js") || !url.pathname.endsWith("/pkg/browser.wasm");
  return instantiatePage(url, emitted, () => import("../../pkg/browser-inline.js"));
}
