// RetryError: why an operation stopped without a successful response.
export class RetryError extends Error {
  /**
   * @param {string} reason one of the documented stop reasons
   * @param {string} message names the method, the (redacted) URL and what happened
   * @param {{ response?: Response, records?: object[], key?: string, cause?: Error }} [details]
   */
  constructor(reason, message, details = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "RetryError";
    this.reason = reason;
    this.response = details.response;
    this.records = details.records ?? [];
    if (details.key !== undefined) this.key = details.key;
  }
}
