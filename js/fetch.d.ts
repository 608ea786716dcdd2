// Types of the lean entry, `retryline/fetch`: the fetch path alone. The same classes as "retryline";
// what this entry leaves out (a call's `key`, `policy.maxHedges`, `reconcile`, `resolve`, `stream`,
// a Budget's `share`) throws a TypeError that names "retryline" at run time.
export { RetryClient, Budget, RetryError, staleness } from "./index.js";
export type {
  Jitter, Policy, Operation, Priority, RetryReason, Pending, AttemptRecord, FamilyRequest, Family, ClientOptions,
  Store, CallOptions, AsFetchDefaults, AsFetchInit, ScopeLimits, BudgetOptions, ScopeSnapshot, Staleness, RetryInfo, EndInfo,
  BudgetEvent,
} from "./index.js";
