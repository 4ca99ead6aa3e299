import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from "jose";
import Provider from "oidc-provider";

/** The audience the hub's tokens are issued for in these tests. */
export const HUB_AUDIENCE = "a2a-hub";
/** The scopes the test IdP's resource server (the hub) offers. */
export const IDP_SCOPES = ["a2a.send", "a2a.read", "a2a.cancel", "a2a.push", "helpdesk.use"];

/** A signing key of the IdP: the private JWK the provider signs with, its kid, and a key jose signs with directly. */
export interface IdpKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** A new RS256 signing key. */
export async function newIdpKey(kid: string): Promise<IdpKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  return { kid, privateJwk, privateKey, publicJwk };
}

/** A client of the test IdP and the tenant claim its tokens carry. */
export interface IdpClient {
  readonly id: string;
  readonly secret: string;
  /** The `org` claim of its tokens (for issuers configured with tenantClaim: org). */
  readonly org?: string;
}

/**
 * A real OpenID provider (oidc-provider) on a loopback port: discovery,
 * JWKS and the client-credentials grant issuing JWT access tokens for the
 * hub's audience. `rotate` swaps in a new signing key (the old one stays
 * published), `down`/`up` take it off and back on the network while its
 * port stays the same, and `jwksFetches` counts GETs of its JWKS.
 */
export class TestIdp {
  jwksFetches = 0;
  /** Token requests answered (any grant). */
  tokenRequests = 0;
  /** The audience of the tokens it issues from now on. */
  audience = HUB_AUDIENCE;
  private provider!: Provider;
  private available = true;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    private keys: IdpKey[],
    private readonly clients: readonly IdpClient[],
  ) {}

  static async start(clients: readonly IdpClient[]): Promise<TestIdp> {
    let handle: (req: IncomingMessage, res: ServerResponse) => void = () => {};
    const server = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const idp = new TestIdp(server, issuer, [await newIdpKey("key-1")], clients);
    idp.configure();
    handle = (req, res) => {
      if (!idp.available) {
        res.writeHead(503).end();
        return;
      }
      if (req.url?.startsWith("/jwks")) idp.jwksFetches++;
      if (req.url?.startsWith("/token")) idp.tokenRequests++;
      idp.provider.callback()(req, res);
    };
    return idp;
  }

  /** The key new tokens are signed with. */
  get currentKey(): IdpKey {
    return this.keys[0]!;
  }

  private configure(): void {
    const orgOf = new Map(this.clients.map((c) => [c.id, c.org]));
    this.provider = new Provider(this.issuer, {
      clients: this.clients.map((c) => ({ client_id: c.id, client_secret: c.secret, grant_types: ["client_credentials"], redirect_uris: [], response_types: [] })),
      jwks: { keys: this.keys.map((k) => k.privateJwk) as never },
      ttl: { ClientCredentials: 300 },
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => "urn:a2a-hub",
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({ scope: IDP_SCOPES.join(" "), audience: this.audience, accessTokenFormat: "jwt", accessTokenTTL: 300, jwt: { sign: { alg: "RS256" } } }),
        },
      },
      extraTokenClaims: (_ctx, token) => {
        const org = orgOf.get((token as { clientId?: string }).clientId ?? "");
        return org ? { org } : undefined;
      },
    });
  }

  /** A token by the client-credentials grant (RFC 6749 §4.4), as any client gets one. */
  async token(clientId: string, scope?: string): Promise<string> {
    const client = this.clients.find((c) => c.id === clientId)!;
    const res = await fetch(`${this.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}` },
      body: new URLSearchParams({ grant_type: "client_credentials", ...(scope ? { scope } : {}) }),
    });
    const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
    if (!body.access_token) throw new Error(`token endpoint: ${res.status} ${body.error} ${body.error_description}`);
    return body.access_token;
  }

  /** A token with claims of the test's choosing, signed with one of the IdP's own keys (or any other). */
  async forge(claims: JWTPayload, options: { key?: IdpKey; alg?: string; expiresIn?: string | number } = {}): Promise<string> {
    const key = options.key ?? this.currentKey;
    const jwt = new SignJWT({ iss: this.issuer, aud: HUB_AUDIENCE, scope: IDP_SCOPES.join(" "), ...claims })
      .setProtectedHeader({ alg: options.alg ?? "RS256", kid: key.kid, typ: "at+jwt" })
      .setIssuedAt();
    if (claims.exp === undefined) jwt.setExpirationTime(options.expiresIn ?? "5m");
    return jwt.sign(key.privateKey);
  }

  /** Rotates: a new key signs from now on; the old one stays published until its tokens expire. */
  async rotate(kid: string): Promise<IdpKey> {
    const next = await newIdpKey(kid);
    this.keys = [next, ...this.keys];
    this.configure();
    return next;
  }

  /** Off the network: every request answers 503, as an IdP behind a failing balancer. */
  down(): void {
    this.available = false;
  }

  up(): void {
    this.available = true;
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server.close(r));
    this.server.closeAllConnections();
  }
}
