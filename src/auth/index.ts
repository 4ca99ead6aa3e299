/** Authentication and authorization: bearer tokens to tenants, agent access, rate limits (§7, §13.1). */
export { AccessGuard, OPEN_TENANT, type AccessDecision, type AccessPolicy } from "./access-guard.js";
export { BearerAuthenticator, bearerToken, hashToken, newToken, type TenantTokens } from "./bearer-tokens.js";
export { RateLimiter, type RateLimit } from "./rate-limiter.js";
export { accessRefusal, type AccessRefusal } from "./access-refusal.js";
