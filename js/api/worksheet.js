// `client.worksheet()`: one row per endpoint family (and one for requests no family matches),
// every field the reference article asks a team to record, computed by the core from what it
// will actually run (src/worksheet.rs) — plus the flags a risk reviewer must see.

const STALE_DOCS_DAYS = 90;
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** An origin the family's URL pattern names literally (for its default scope), if any. */
const originOf = (pattern) => {
  const found = typeof pattern === "string" ? /^(?:https?|wss?):\/\/[^/*:?#]+(?::\d+)?/.exec(pattern)?.[0] : undefined;
  // A stream's scope is its origin read as http(s), as client.stream reads it.
  return found?.replace(/^ws/, "http");
};

/** A URL that a pattern string matches, for telling whether an earlier family shadows it. */
const sampleOf = (pattern) => pattern.replace(/\*/g, "x").replace(/:[A-Za-z_]\w*/g, "x");

class Worksheet {
  constructor(rows) {
    this.rows = rows;
  }

  toJSON() {
    return { rows: this.rows };
  }

  /** The worksheet as a Markdown table, then its flags. */
  toMarkdown() {
    const head = ["family", "match", "side effect", "retried on", "provider waits", "windows ms", "attempts (fit)", "attempt timeout", "deadline (longest schedule)", "scope, bucket", "when exhausted", "docs (checked)"];
    const line = (cells) => `| ${cells.join(" | ")} |`;
    const rows = this.rows.map((r) => line([
      r.family ?? "(no family)",
      `\`${r.match}\``,
      r.operation,
      `${r.retried.join(", ")}${r.timeouts === "retryable" ? ", timeouts" : ""}${r.unknownOutcome.length ? `; unknown outcome: ${r.unknownOutcome.join(", ")}, timeouts` : ""}`,
      r.providerWaitHeaders.join(", "),
      r.windowsMs.length ? r.windowsMs.join(", ") : "–",
      `${r.policy.maxAttempts} (${r.attemptsThatFit})`,
      `${r.policy.attemptTimeoutMs} ms`,
      `${r.policy.deadlineMs} ms (${r.longestScheduleMs} ms)`,
      `${r.scope}, ${r.bucket ? `${r.bucket.capacity} tokens, ${r.bucket.refillMilliPerSecond / 1000}/s` : "no token limit"}; weight ${r.weight}`,
      r.exhausted,
      r.docs ? `${r.docs.url ?? "–"} (${r.docs.checked ?? "not dated"})` : "–",
    ]));
    const flags = this.rows.flatMap((r) => r.flags.map((f) => `- **${r.family ?? "(no family)"}**: ${f}`));
    return [line(head), line(head.map(() => "---")), ...rows, "", flags.length ? "Flags:" : "No flags.", ...flags, ""].join("\n");
  }
}

/** `worksheet(c, dryRun)` over `core`: `dryRun(c, where, options, url, method)` begins an unsent call. */
export function defineWorksheet(core) {
  function plan(c, dryRun, where, options, url, method) {
    const handle = dryRun(c, where, options, url, method);
    try {
      return core.calls.plan(handle);
    } finally {
      core.calls.free(handle);
    }
  }

  function row(c, dryRun, family, earlier, today) {
    const methods = family?.match.methods;
    const method = methods?.[0] ?? "GET";
    const origin = originOf(family?.match.url);
    const options = family === null ? undefined : { ...family.core };
    const p = plan(c, dryRun, `worksheet: family ${family?.name ?? "(none)"}`, options, `${origin ?? "https://any.origin"}/`, method);
    const flags = [];
    if (family !== null) {
      if (methods?.some((m) => MUTATING.has(m)) && p.operation === "read") flags.push(`a mutation (${methods.join("/")}) declared "read": a lost answer would be retried as if nothing had happened`);
      if (family.docs?.checked === undefined) flags.push("no provider documentation with the date it was checked (docs: { url, checked })");
      else if ((today - Date.parse(family.docs.checked)) / 86_400_000 > STALE_DOCS_DAYS) flags.push(`its documentation was checked ${family.docs.checked}, more than ${STALE_DOCS_DAYS} days ago`);
      const final = family.docs?.final ?? [];
      const retriedFinal = p.retried.filter((s) => final.includes(s));
      if (retriedFinal.length) flags.push(`retries ${retriedFinal.join(", ")}, which the provider documents as final`);
      const sample = family.match.url === undefined ? undefined : sampleOf(family.match.url);
      const shadow = sample === undefined ? undefined : earlier.find((e) => e.match.test({ method, url: sample }));
      if (shadow) flags.push(`shadowed by the earlier family "${shadow.name}": it matches this family's requests first`);
    }
    if (p.attemptsThatFit < p.policy.maxAttempts) flags.push(`only ${p.attemptsThatFit} of ${p.policy.maxAttempts} attempts fit the ${p.policy.deadlineMs} ms deadline on the longest schedule`);
    const weight = typeof family?.weight === "function" ? "by request" : p.weight;
    const scope = family?.core.scope ?? (origin ?? "the request's origin");
    const exhausted = p.operation === "order"
      ? "attempts / deadline / budget stop the call; a lost answer is an unknown outcome: reconciled (client.reconcile), never resubmitted"
      : "stops with attempts, deadline, provider-wait, budget or banned; nothing more is sent";
    const matched = { methods: family?.match.methods ?? null, matchUrl: family?.match.url ?? null };
    if (family?.waits !== undefined) p.providerWaitHeaders = family.waits.names;
    return { family: family?.name ?? null, match: family?.match.text ?? "anything no family matches", ...matched, ...p, scope, weight, exhausted, docs: family?.docs ?? null, flags };
  }

  return function worksheet(c, dryRun) {
    const today = Date.now();
    const rows = c.families.map((family, i) => row(c, dryRun, family, c.families.slice(0, i), today));
    rows.push(row(c, dryRun, null, c.families, today));
    return new Worksheet(rows);
  };
}
