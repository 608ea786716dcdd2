export function streamsOf() { return undefined; }
