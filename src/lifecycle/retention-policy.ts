import type { RetentionCutoffs, StoreScope } from "../store/index.js";

/** How long settled tasks are kept (ms); undefined: kept for ever. */
export interface RetentionRule {
  /** Tasks in a terminal state, after their last status. */
  readonly terminalAfterMs?: number;
  /** INPUT_REQUIRED and AUTH_REQUIRED tasks, after their last status (untouched since). */
  readonly interruptedAfterMs?: number;
}

/** The hub's rule, and rules of single tenants and agents over it. */
export interface RetentionPolicy extends RetentionRule {
  readonly tenants?: Readonly<Record<string, RetentionRule>>;
  readonly agents?: Readonly<Record<string, RetentionRule>>;
}

/**
 * The rule of one scope, field by field: an agent's own over its tenant's
 * over the hub's (the most specific setting wins; an agent is named by
 * every tenant that calls it, so its rule is the narrower promise).
 */
export function ruleFor(policy: RetentionPolicy, scope: StoreScope): RetentionRule {
  const agent = policy.agents?.[scope.agentId];
  const tenant = policy.tenants?.[scope.tenant];
  return {
    terminalAfterMs: agent?.terminalAfterMs ?? tenant?.terminalAfterMs ?? policy.terminalAfterMs,
    interruptedAfterMs: agent?.interruptedAfterMs ?? tenant?.interruptedAfterMs ?? policy.interruptedAfterMs,
  };
}

/** The cutoffs of a scope at `nowMs`, or undefined when the scope keeps everything. */
export function cutoffsFor(policy: RetentionPolicy, scope: StoreScope, nowMs: number): RetentionCutoffs | undefined {
  const r = ruleFor(policy, scope);
  if (r.terminalAfterMs === undefined && r.interruptedAfterMs === undefined) return undefined;
  return {
    terminalBeforeMs: r.terminalAfterMs === undefined ? undefined : nowMs - r.terminalAfterMs,
    interruptedBeforeMs: r.interruptedAfterMs === undefined ? undefined : nowMs - r.interruptedAfterMs,
  };
}

/** Whether any setting of the policy deletes anything. */
export function retentionConfigured(policy: RetentionPolicy | undefined): boolean {
  if (!policy) return false;
  const set = (r: RetentionRule | undefined): boolean => r?.terminalAfterMs !== undefined || r?.interruptedAfterMs !== undefined;
  return set(policy) || Object.values(policy.tenants ?? {}).some(set) || Object.values(policy.agents ?? {}).some(set);
}
