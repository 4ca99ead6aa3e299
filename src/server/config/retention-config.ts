import type { RetentionPolicy, RetentionRule } from "../../lifecycle/index.js";
import { Checker, configError, type Path } from "./config-checker.js";
import { DURATION_HINT, parseDuration } from "./duration.js";

/** The flags that set the hub-wide retention. */
export interface RetentionOverrides {
  readonly retentionTerminalAfter?: string;
  readonly retentionInterruptedAfter?: string;
}

const KEYS = ["terminalAfter", "interruptedAfter"] as const;
const ENV = { terminalAfter: "A2A_HUB_RETENTION_TERMINAL_AFTER", interruptedAfter: "A2A_HUB_RETENTION_INTERRUPTED_AFTER" } as const;
const FLAG = { terminalAfter: "--terminal-after", interruptedAfter: "--interrupted-after" } as const;
const CLI = { terminalAfter: "retentionTerminalAfter", interruptedAfter: "retentionInterruptedAfter" } as const;

/** `retention: { terminalAfter, interruptedAfter }` at `path`, each a duration. */
function ruleOf(c: Checker, raw: unknown, path: Path): RetentionRule {
  const o = c.object(raw, path);
  c.known(o, path, KEYS);
  const ms = (key: (typeof KEYS)[number]): number | undefined => {
    if (o[key] === undefined) return undefined;
    const v = c.string(o[key], [...path, key]);
    return parseDuration(v) ?? c.fail([...path, key], DURATION_HINT);
  };
  return { terminalAfterMs: ms("terminalAfter"), interruptedAfterMs: ms("interruptedAfter") };
}

/** The `retention` mappings of the listed tenants or agents, by id. */
function overridesOf(c: Checker, list: unknown, section: "tenants" | "agents"): Record<string, RetentionRule> | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: Record<string, RetentionRule> = {};
  list.forEach((item, i) => {
    const o = item as Record<string, unknown>;
    if (o.retention !== undefined && typeof o.id === "string") out[o.id] = ruleOf(c, o.retention, [section, i, "retention"]);
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Retention (off unless configured): the hub-wide rule from the flag, the
 * variable or `retention:`, and per-tenant and per-agent rules from
 * `tenants[].retention` and `agents[].retention`. Undefined when nothing is
 * ever deleted.
 */
export function retentionOf(c: Checker, file: Record<string, unknown>, env: NodeJS.ProcessEnv, cli: RetentionOverrides): RetentionPolicy | undefined {
  const fileRule = file.retention === undefined ? {} : ruleOf(c, file.retention, ["retention"]);
  const hub = (key: (typeof KEYS)[number]): number | undefined => {
    const flag = cli[CLI[key]];
    const fromEnv = env[ENV[key]];
    const [name, text] = flag !== undefined ? [FLAG[key], flag] : fromEnv !== undefined && fromEnv !== "" ? [ENV[key], fromEnv] : [undefined, undefined];
    if (name === undefined) return key === "terminalAfter" ? fileRule.terminalAfterMs : fileRule.interruptedAfterMs;
    return parseDuration(text) ?? configError(name, `${DURATION_HINT}, got ${JSON.stringify(text)}`);
  };
  const policy: RetentionPolicy = {
    terminalAfterMs: hub("terminalAfter"),
    interruptedAfterMs: hub("interruptedAfter"),
    tenants: overridesOf(c, file.tenants, "tenants"),
    agents: overridesOf(c, file.agents, "agents"),
  };
  const any = policy.terminalAfterMs !== undefined || policy.interruptedAfterMs !== undefined || policy.tenants || policy.agents;
  return any ? policy : undefined;
}
