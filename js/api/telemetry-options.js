// `telemetry` as a RetryClient or a Budget reads it: the OpenTelemetry providers handed in, each
// checked for its factory method, an unknown field named as every other option's is.

import { optionKeys, unreadable, wrongType } from "./invalid.js";

/** `telemetry` of `context` ("RetryClient" or "Budget") read once: the providers it names.
 * @throws {TypeError} naming an unknown field or a provider without its factory method. */
export function readTelemetry(context, value, fields) {
  if (value === undefined || value === null) return undefined;
  const read = {};
  for (const key of optionKeys(`${context}: telemetry`, value)) {
    if (!fields.includes(key)) {
      throw new TypeError(`${context}: telemetry.${key} is not a known option (telemetry takes ${fields.join(", ")})`);
    }
    let provider;
    try {
      provider = value[key];
    } catch (error) {
      throw unreadable(context, `telemetry.${key}`, error);
    }
    if (provider === undefined || provider === null) continue;
    const factory = key === "tracerProvider" ? "getTracer" : "getMeter";
    let method;
    try {
      method = provider[factory];
    } catch (error) {
      throw unreadable(context, `telemetry.${key}.${factory}`, error);
    }
    if (typeof method !== "function") throw wrongType(context, `telemetry.${key}`, `an OpenTelemetry ${key} (with ${factory}())`, provider);
    read[key] = provider;
  }
  return read;
}
