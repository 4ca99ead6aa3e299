import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { SecurityRequirementSchema, SecuritySchemeSchema, type SecurityRequirement, type SecurityScheme } from "../../gen/a2a/v1/a2a_pb.js";

/** One identity provider as the card describes it. */
export interface CardIssuer {
  /** Its OpenID Connect discovery URL. */
  readonly discoveryUrl: string;
  /** Its token endpoint (from discovery), for the client-credentials flow; unknown until discovery answered. */
  readonly tokenUrl?: string;
}

/** How callers may authenticate, as the configuration says: what the card's §4.5 fields are derived from. */
export interface CardSecurity {
  /** Static bearer tokens are accepted. */
  readonly bearer: boolean;
  readonly issuers: readonly CardIssuer[];
  /** Client certificates are accepted. */
  readonly mtls: boolean;
  /** Scope name → what it allows, for the OAuth 2.0 flows. */
  readonly scopes: Readonly<Record<string, string>>;
}

/** A card's security fields, and the requirement a skill of an agent carries when the agent requires scopes. */
export interface CardSecurityFields {
  readonly securitySchemes: Record<string, SecurityScheme>;
  readonly securityRequirements: SecurityRequirement[];
  /** What each skill requires; undefined when the agent requires no scope of its own. */
  readonly skillRequirements?: SecurityRequirement[];
}

/**
 * §4.5: the schemes a client may use, and one requirement per scheme (any
 * one of them suffices: §4.4.1 lists alternatives). OpenID Connect names
 * the discovery URL; OAuth 2.0 the client-credentials flow with the token
 * URL and the scopes; mutual TLS; HTTP bearer for static tokens. The
 * scopes an agent requires are listed in its OAuth requirements and on
 * each of its skills.
 */
export function cardSecurityFields(security: CardSecurity, agentScopes: readonly string[] = []): CardSecurityFields | undefined {
  const schemes: Record<string, SecurityScheme> = {};
  const requirements: SecurityRequirement[] = [];
  const scoped: SecurityRequirement[] = [];
  const add = (name: string, scheme: MessageInitShape<typeof SecuritySchemeSchema>["scheme"], scopes: readonly string[]): void => {
    schemes[name] = create(SecuritySchemeSchema, { scheme });
    const requirement = create(SecurityRequirementSchema, { schemes: { [name]: { list: [...scopes] } } });
    requirements.push(requirement);
    if (scopes.length > 0) scoped.push(requirement);
  };
  security.issuers.forEach((issuer, i) => {
    const suffix = security.issuers.length > 1 ? `-${i + 1}` : "";
    add(`oidc${suffix}`, { case: "openIdConnectSecurityScheme", value: { openIdConnectUrl: issuer.discoveryUrl, description: "An access token of the identity provider" } }, agentScopes);
    if (issuer.tokenUrl) {
      add(
        `oauth2${suffix}`,
        {
          case: "oauth2SecurityScheme",
          value: {
            description: "OAuth 2.0 client credentials at the identity provider",
            oauth2MetadataUrl: issuer.discoveryUrl,
            flows: { flow: { case: "clientCredentials", value: { tokenUrl: issuer.tokenUrl, scopes: { ...security.scopes } } } },
          },
        },
        agentScopes,
      );
    }
  });
  if (security.mtls) add("mtls", { case: "mtlsSecurityScheme", value: { description: "A client certificate issued by the hub's client CA" } }, []);
  if (security.bearer) add("bearer", { case: "httpAuthSecurityScheme", value: { scheme: "Bearer", description: "A tenant's bearer token" } }, []);
  if (requirements.length === 0) return undefined;
  return { securitySchemes: schemes, securityRequirements: requirements, skillRequirements: agentScopes.length > 0 ? scoped : undefined };
}
