// What servers (Node, workerd) load with the entry itself: bytes are not what they count, and
// workerd needs every module in its graph of static imports.
import * as asFetch from "./as-fetch.js";
import * as beyond from "../executor/beyond.js";
import * as stream from "../executor/stream.js";
import { replayOf } from "../core/replay.js";
import { shareEffect } from "../core/share.js";
import { streamsOf } from "../core/streams.js";

export const load = { asFetch: () => asFetch, stream: () => stream, core: { streams: streamsOf, replay: replayOf, share: shareEffect }, beyond };
export { defineWorksheet } from "./worksheet.js";
export { defineStream } from "./stream.js";
