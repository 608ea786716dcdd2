// What servers (Node, workerd) load with the entry itself: bytes are not what they count, and
// workerd needs every module in its graph of static imports.
import * as asFetch from "./as-fetch.js";
import * as keyed from "../drivers/keyed.js";
import * as reconcile from "../drivers/reconcile.js";
import * as stream from "../drivers/stream.js";
import * as predicate from "../drivers/predicate.js";
import * as hedge from "../drivers/hedge.js";
import * as worksheet from "./worksheet.js";

export const load = { asFetch: () => asFetch, keyed: () => keyed, reconcile: () => reconcile, stream: () => stream, predicate: () => predicate, hedge: () => hedge, worksheet: () => worksheet };
