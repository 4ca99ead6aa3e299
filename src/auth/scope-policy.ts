import { holdsScope, type Caller } from "./caller.js";

/** The scope names of the four kinds of operation; configurable under `auth.scopes`. */
export interface ScopeNames {
  readonly send: string;
  readonly read: string;
  readonly cancel: string;
  readonly push: string;
}

/** The default scope names. */
export const DEFAULT_SCOPE_NAMES: ScopeNames = { send: "a2a.send", read: "a2a.read", cancel: "a2a.cancel", push: "a2a.push" };

/** Which kind of scope each A2A operation needs, by the service method's local name. */
const OPERATION_KIND: Readonly<Record<string, keyof ScopeNames>> = {
  sendMessage: "send",
  sendStreamingMessage: "send",
  getTask: "read",
  listTasks: "read",
  subscribeToTask: "read",
  getExtendedAgentCard: "read",
  cancelTask: "cancel",
  createTaskPushNotificationConfig: "push",
  getTaskPushNotificationConfig: "push",
  listTaskPushNotificationConfigs: "push",
  deleteTaskPushNotificationConfig: "push",
};

/** Who may do what: the scope each operation needs, and what each agent requires on top. */
export class ScopePolicy {
  constructor(
    readonly names: ScopeNames = DEFAULT_SCOPE_NAMES,
    /** Agent id → scopes a caller must hold to use it at all. */
    readonly agentScopes: ReadonlyMap<string, readonly string[]> = new Map(),
  ) {}

  /** The scope an operation needs (undefined for a method outside the table). */
  operationScope(operation: string): string | undefined {
    const kind = OPERATION_KIND[operation];
    return kind && this.names[kind];
  }

  /** The scopes `caller` lacks for `operation` on `agentId`; empty when it may go ahead. */
  missing(caller: Caller, operation: string, agentId: string): string[] {
    if (caller.scopes === undefined) return [];
    const needed = [this.operationScope(operation), ...(this.agentScopes.get(agentId) ?? [])];
    return needed.filter((s): s is string => s !== undefined && !holdsScope(caller, s));
  }
}
