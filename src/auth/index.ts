/** Who is calling (§7, §13.1): static tokens, JWT access tokens of identity providers, client certificates; scopes per operation and agent; rate limits. */
export { AccessGuard, OPEN_TENANT, type AccessDecision, type AccessGuardOptions, type AccessPolicy } from "./access-guard.js";
export { accessRefusal, scopeRefusal, type AccessRefusal } from "./access-refusal.js";
export { MAX_TOKEN_BYTES, type Credentials } from "./authenticator.js";
export { BearerAuthenticator, bearerToken, hashToken, newToken, type TenantTokens } from "./bearer-tokens.js";
export { holdsScope, openCaller, type AuthMethod, type Caller, type CredentialRefusal, type Identification, type RefusalReason } from "./caller.js";
export { discoveryUrl, fetchProviderMetadata, type ProviderMetadata } from "./issuer-keys.js";
export type { JwtIssuerConfig } from "./jwt-issuer.js";
export type { CertificateField, MtlsConfig, PeerCertificate } from "./mtls-identity.js";
export { RateLimiter, type RateLimit } from "./rate-limiter.js";
export { RefusalLog, type WarnLogger } from "./refusal-log.js";
export { DEFAULT_SCOPE_NAMES, type ScopeNames, type ScopePolicy } from "./scope-policy.js";
