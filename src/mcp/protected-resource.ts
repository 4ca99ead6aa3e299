/** Where a client finds the protected-resource metadata of `/mcp` (RFC 9728 §3.1: the well-known path inserted before the resource's path). */
export const PROTECTED_RESOURCE_PATHS: readonly string[] = ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"];

/**
 * RFC 9728 §2: the metadata an MCP client reads to learn how to get a
 * token for the hub's MCP endpoint (MCP authorization, "Authorization
 * Server Discovery"). `authorizationServers` is empty while the hub knows
 * only static bearer tokens; once it trusts an OAuth issuer, its URL
 * belongs here.
 */
export function protectedResourceMetadata(resource: string, authorizationServers: readonly string[]): Record<string, unknown> {
  return {
    resource,
    ...(authorizationServers.length > 0 ? { authorization_servers: [...authorizationServers] } : {}),
    bearer_methods_supported: ["header"],
    resource_name: "a2a-hub MCP server",
  };
}

/** RFC 9728 §5.1 / RFC 6750 §3: the challenge of a 401, naming where the metadata is. */
export function bearerChallenge(metadataUrl: string, challenge = 'Bearer realm="a2a-hub"'): string {
  return `${challenge}, resource_metadata="${metadataUrl}"`;
}
