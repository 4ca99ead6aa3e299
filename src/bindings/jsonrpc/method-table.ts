import { V03_METHODS } from "./methods-v03.js";
import { V1_METHODS } from "./methods-v1.js";
import type { RpcMethod } from "./rpc-method.js";

const TABLE: ReadonlyMap<string, RpcMethod> = new Map([...V1_METHODS, ...V03_METHODS].map((method) => [method.name, method]));

/**
 * The method a JSON-RPC name selects; its dialect is the dialect of the
 * reply (hub design: v1.0 PascalCase names and v0.3 slash names on one
 * endpoint). Names are case-sensitive (JSON-RPC 2.0 §4).
 */
export function lookupMethod(name: string): RpcMethod | undefined {
  return TABLE.get(name);
}

/** Every method name served, v1.0 first. */
export function methodNames(): string[] {
  return [...TABLE.keys()];
}
