// Types of `retryline/profiles/reference-api`: RetryClient options for the second reference document's API.
import type { ClientOptions } from "../index.js";

declare const referenceApi: ClientOptions & { families: NonNullable<ClientOptions["families"]> };
export default referenceApi;
