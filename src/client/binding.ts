import { parseVersion, type A2AVersion } from "../protocol/index.js";

/** The bindings this client speaks, by the short names the CLI and configs use. */
export type BindingName = "jsonrpc" | "rest" | "grpc";

/** The default preference order: JSON-RPC, then HTTP+JSON, then gRPC. */
export const BINDING_NAMES: readonly BindingName[] = ["jsonrpc", "rest", "grpc"];

/** §5.3, §8.3.1: the protocolBinding an AgentInterface names for each binding. */
export const PROTOCOL_BINDINGS: Readonly<Record<BindingName, string>> = { jsonrpc: "JSONRPC", rest: "HTTP+JSON", grpc: "GRPC" };

/**
 * The protocol versions this client speaks on each binding, newest first.
 * v0.3's REST paths and gRPC package differ from v1.0's and are not spoken;
 * its JSON-RPC dialect is (translated by the server's own dialect-v03).
 */
export const SPOKEN_VERSIONS: Readonly<Record<BindingName, readonly A2AVersion[]>> = {
  jsonrpc: ["1.0", "0.3"],
  rest: ["1.0"],
  grpc: ["1.0"],
};

/** Whether a string names a binding. */
export function isBindingName(value: string): value is BindingName {
  return (BINDING_NAMES as readonly string[]).includes(value);
}

/** The binding a protocolBinding value names (case-insensitive), if this client speaks it. */
export function bindingOf(protocolBinding: string): BindingName | undefined {
  const upper = protocolBinding.trim().toUpperCase();
  return BINDING_NAMES.find((b) => PROTOCOL_BINDINGS[b] === upper);
}

/**
 * §3.6: an interface's protocolVersion as Major.Minor ("1.0.1" → "1.0",
 * "0.3.0" → "0.3"); undefined for versions this client does not know. An
 * empty value is read as 1.0, the version whose cards carry the field.
 */
export function versionOf(protocolVersion: string): A2AVersion | undefined {
  if (protocolVersion.trim() === "") return "1.0";
  try {
    return parseVersion(protocolVersion);
  } catch {
    return undefined;
  }
}
