/** How a caller proved who it is. */
export type AuthMethod = "open" | "static-token" | "jwt" | "mtls";

/**
 * Who is calling, decided once per request before any binding sees it and
 * read by every binding and the console alike (§7.4, §13.1).
 */
export interface Caller {
  /** The tenant every store query, limit and counter of this request is scoped by. */
  readonly tenant: string;
  /** The scopes the caller holds; undefined means every scope (a credential that lists none keeps full access). */
  readonly scopes: ReadonlySet<string> | undefined;
  readonly method: AuthMethod;
  /** The token's `sub`, or the certificate's subject, for logs; never a secret. */
  readonly subject?: string;
}

/**
 * Why a credential was refused: the fixed label values of
 * `a2a_auth_refusals_total{reason}`.
 */
export type RefusalReason = "missing" | "malformed" | "expired" | "issuer" | "audience" | "signature" | "scope" | "certificate";

/** A refused credential and what the client is told (never the credential itself). */
export interface CredentialRefusal {
  readonly reason: RefusalReason;
  /** Safe to show: says what was wrong, never echoes the token. */
  readonly message: string;
}

/** What identifying a request found. */
export type Identification = { readonly ok: true; readonly caller: Caller } | { readonly ok: false; readonly refusal: CredentialRefusal };

/** The one caller when authentication is off. */
export function openCaller(tenant: string): Caller {
  return { tenant, scopes: undefined, method: "open" };
}

/** Whether a caller holds a scope (every scope when it holds no list). */
export function holdsScope(caller: Caller, scope: string): boolean {
  return caller.scopes === undefined || caller.scopes.has(scope);
}

/** A refusal, built in one line where it is decided. */
export function refused(reason: RefusalReason, message: string): Identification {
  return { ok: false, refusal: { reason, message } };
}
