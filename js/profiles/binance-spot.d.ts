// Types of `retryline/profiles/binance-spot`: RetryClient options, a Budget's and a stream's, and
// Binance's order statuses as evidence.
import type { BudgetOptions, ClientOptions, Evidence, StreamOptions } from "../index.js";

/** The families of Binance Spot's REST API (market data, order book, account reads, orders, the listen key). */
declare const binance: ClientOptions & { families: NonNullable<ClientOptions["families"]> };
export default binance;

/** Binance's `status` of an order (NEW … EXPIRED_IN_MATCH) as evidence, for `reconcile`'s `statuses`. */
export declare const orderStatuses: Readonly<Record<"NEW" | "PARTIALLY_FILLED" | "FILLED" | "CANCELED" | "PENDING_CANCEL" | "REJECTED" | "EXPIRED" | "EXPIRED_IN_MATCH", Exclude<Evidence, "not-found">>>;

/** One IP's request weight a minute, as X-MBX-USED-WEIGHT-1M reports it. */
export declare const budgetOptions: BudgetOptions;

/** The REST calls' scope, 5 messages a second, rotation before the 24 h cut. */
export declare const streamOptions: Pick<StreamOptions, "scope" | "sendPerSecond" | "rotateAfterMs">;
