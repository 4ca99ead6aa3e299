import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromJson, toJson, type JsonObject } from "@bufbuild/protobuf";
import { importJWK, type JWK } from "jose";
import { AgentCard as SdkAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from "@a2a-js/sdk";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { A2AClient, CardSignatureError, cardVerifier } from "../../src/client/index.js";
import { buildConfig, ConfigError, DEFAULT_JWKS_PATH, hubOptionsFromConfig, readConfigFile, type HubOptions } from "../../src/server/index.js";
import { post, rpc } from "../helpers/jsonrpc-requests.js";
import { rest } from "../helpers/rest.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { REPO_ROOT } from "../helpers/server-process.js";

let dir: string;
let t: TestHub;
let jwks: { keys: JWK[] };
let base: string;

/** A card document as served, and the same read as the v1.0 AgentCard. */
async function served(path: string): Promise<{ json: JsonObject; card: AgentCard }> {
  const res = await fetch(new URL(path, base));
  expect(res.status).toBe(200);
  const json = (await res.json()) as JsonObject;
  return { json, card: fromJson(AgentCardSchema, json, { ignoreUnknownFields: true }) };
}

/** @a2a-js/sdk's verifier with a key store (kid lookup): the hub's JWKS unless given fewer keys. */
const sdkVerifier = (keys?: () => readonly JWK[]) =>
  verifyAgentCardSignature(async (kid) => {
    const jwk = (keys?.() ?? jwks.keys).find((k) => k.kid === kid);
    if (!jwk) throw new Error(`no key ${kid}`);
    return jwk;
  });
const sdkVerify = sdkVerifier();

/** The SDK accepts the first signature that verifies: with one key in its store, that key's signature alone must verify. */
async function expectSdkVerifiesWithEachKey(json: JsonObject): Promise<void> {
  for (const k of jwks.keys) await expect(sdkVerifier(() => [k])(SdkAgentCard.fromJSON(json)), String(k.kid)).resolves.toBeUndefined();
}

function writeConfig(name: string, cards: string): string {
  const file = join(dir, name);
  writeFileSync(file, `agents:\n  - id: echo\n    kind: echo\ncards:\n${cards}`);
  return file;
}


/** A config file's hub options, on a data directory of the test's own (the file's default, ./data, would be the repository's, and one directory serves one hub). */
function optionsFrom(file: string): HubOptions {
  const { dataDir: _dataDir, ...options } = hubOptionsFromConfig(buildConfig(readConfigFile(file), {}));
  return options;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "a2a-hub-signing-"));
  // Rotation: an ES256 key as PKCS#8 PEM and an EdDSA (Ed25519) key as a private JWK, both listed.
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  writeFileSync(join(dir, "es256.pem"), ec.privateKey.export({ type: "pkcs8", format: "pem" }));
  const ed = generateKeyPairSync("ed25519");
  writeFileSync(join(dir, "ed25519.jwk"), JSON.stringify(ed.privateKey.export({ format: "jwk" })));
  const file = writeConfig(
    "hub.yaml",
    `  signing:\n    - { key: ${join(dir, "es256.pem")}, kid: key-2026-11, alg: ES256 }\n    - { key: ${join(dir, "ed25519.jwk")}, kid: key-2026-12, alg: EdDSA }\n  jwksPath: /keys/jwks.json\n`,
  );
  const options = optionsFrom(file);
  const card = echoCard();
  card.capabilities!.extendedAgentCard = true;
  const extendedCard = create(AgentCardSchema, { ...card, name: "echo, extended", description: "the card for known callers" });
  t = await startTestHub({ ...options, agents: [{ id: "echo", executor: new EchoAgent(), card, extendedCard }] });
  base = t.url;
  jwks = (await (await fetch(new URL("/keys/jwks.json", base))).json()) as { keys: JWK[] };
});
afterAll(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("cards.signing: the hub signs every card it serves (§8.4)", () => {
  it("the JWKS at the configured path lists each key's public half with its kid and alg, no private part", () => {
    expect(jwks.keys.map((k) => [k.kid, k.alg, k.kty, k.crv])).toEqual([
      ["key-2026-11", "ES256", "EC", "P-256"],
      ["key-2026-12", "EdDSA", "OKP", "Ed25519"],
    ]);
    for (const k of jwks.keys) expect(k.d).toBeUndefined();
  });

  it("the well-known card carries one JWS per key, protected header {alg, typ JOSE, kid, jku}, and each verifies alone", async () => {
    const { card } = await served("/.well-known/agent-card.json");
    expect(card.signatures).toHaveLength(2);
    const headers = card.signatures.map((s) => JSON.parse(Buffer.from(s.protected, "base64url").toString("utf8")) as Record<string, string>);
    expect(headers).toEqual([
      { alg: "ES256", typ: "JOSE", kid: "key-2026-11", jku: new URL("/keys/jwks.json", base).toString() },
      { alg: "EdDSA", typ: "JOSE", kid: "key-2026-12", jku: new URL("/keys/jwks.json", base).toString() },
    ]);
    // Rotation: a client holding only the old key, or only the new one, accepts the card.
    for (const k of jwks.keys) expect((await cardVerifier({ keys: { keys: [k] } })(card)).kid).toBe(k.kid);
  });

  it("a signed card keeps one ETag across requests, so If-None-Match still answers 304 (§8.6.1)", async () => {
    const first = await fetch(new URL("/.well-known/agent-card.json", base));
    const etag = first.headers.get("etag")!;
    const again = await fetch(new URL("/.well-known/agent-card.json", base));
    expect(again.headers.get("etag")).toBe(etag);
    expect((await fetch(new URL("/.well-known/agent-card.json", base), { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  it("a card signed by the hub verifies with @a2a-js/sdk's verifyAgentCardSignature: well-known, per-agent and extended, with the ES256 key and with the EdDSA key", async () => {
    for (const path of ["/.well-known/agent-card.json", "/v1/a2a/agents/echo/agent-card.json"]) {
      const { json } = await served(path);
      await expect(sdkVerify(SdkAgentCard.fromJSON(json))).resolves.toBeUndefined();
      await expectSdkVerifiesWithEachKey(json);
    }
    const extended = await t.client("grpc").getExtendedAgentCard({});
    expect(extended.name).toBe("echo, extended");
    // Its supportedInterfaces is empty (a REQUIRED field): each key signs §8.4.1's form and the SDK's.
    expect(extended.signatures).toHaveLength(4);
    await expectSdkVerifiesWithEachKey(toJson(AgentCardSchema, extended) as JsonObject);
    for (const k of jwks.keys) expect((await cardVerifier({ keys: { keys: [k] } })(extended)).kid).toBe(k.kid);
  });

  it("the extended card is signed alike over JSON-RPC and HTTP+JSON (§3.1.11 on every binding)", async () => {
    const grpc = toJson(AgentCardSchema, await t.client("grpc").getExtendedAgentCard({})) as JsonObject;
    const viaJsonRpc = (await post(base, rpc("GetExtendedAgentCard", {}))).json.result as JsonObject;
    const viaRest = (await rest(base, "GET", "/extendedAgentCard")).json as JsonObject;
    for (const [binding, json] of [
      ["JSON-RPC", viaJsonRpc],
      ["HTTP+JSON", viaRest],
    ] as const) {
      expect(json?.name, binding).toBe("echo, extended");
      expect(json.signatures, binding).toEqual(grpc.signatures);
      await expectSdkVerifiesWithEachKey(json);
      expect((await cardVerifier({ keys: jwks })(fromJson(AgentCardSchema, json, { ignoreUnknownFields: true }))).kid, binding).toBe("key-2026-11");
    }
  });

  it("each card of the agent catalog (GET /v1/a2a/agents) is signed: the very card its cardUrl serves", async () => {
    const res = await fetch(new URL("/v1/a2a/agents", base));
    expect(res.status).toBe(200);
    const { agents } = (await res.json()) as { agents: { id: string; cardUrl: string; card: JsonObject }[] };
    expect(agents.map((a) => a.id)).toEqual(["echo"]);
    const own = await served(new URL(agents[0]!.cardUrl).pathname);
    expect(agents[0]!.card.signatures).toEqual(own.json.signatures);
    await expectSdkVerifiesWithEachKey(agents[0]!.card);
    expect((await cardVerifier({ keys: jwks })(fromJson(AgentCardSchema, agents[0]!.card, { ignoreUnknownFields: true }))).kid).toBe("key-2026-11");
  });

  it("a tampered card is refused by our verifier and by the SDK's", async () => {
    const { json } = await served("/.well-known/agent-card.json");
    const tampered = { ...json, description: "a different agent" };
    const card = fromJson(AgentCardSchema, tampered, { ignoreUnknownFields: true });
    await expect(cardVerifier({ keys: jwks })(card)).rejects.toThrow(/failed signature verification: .*does not match the card/);
    await expect(sdkVerify(SdkAgentCard.fromJSON(tampered))).rejects.toThrow(/No valid signatures/);
    // The v0.3 fields of our card document are outside the v1.0 AgentCard, so outside the signature (as in the SDK).
    await expect(cardVerifier({ keys: jwks })(fromJson(AgentCardSchema, { ...json, url: "http://elsewhere/" }, { ignoreUnknownFields: true }))).resolves.toBeTruthy();
  });

  it("a bad key file or a key that does not fit its alg is a ConfigError naming the key", () => {
    const wrongAlg = writeConfig("wrong.yaml", `  signing: { key: ${join(dir, "ed25519.jwk")}, kid: k, alg: ES256 }\n`);
    expect(() => hubOptionsFromConfig(buildConfig(readConfigFile(wrongAlg), {}))).toThrow(ConfigError);
    expect(() => hubOptionsFromConfig(buildConfig(readConfigFile(wrongAlg), {}))).toThrow(/cards\.signing\.key.*cannot sign ES256/);
    const unknownAlg = writeConfig("alg.yaml", `  signing: { key: x, kid: k, alg: HS256 }\n`);
    expect(() => buildConfig(readConfigFile(unknownAlg), {})).toThrow(/cards\.signing\.alg/);
  });
});

describe("cards: { signing: { key, kid, alg } }: the short form for one key", () => {
  it("signs with that key and serves its JWKS at the default /.well-known/jwks.json", async () => {
    const file = writeConfig("one-key.yaml", `  signing: { key: ${join(dir, "ed25519.jwk")}, kid: only, alg: EdDSA }\n`);
    const one = await startTestHub({ ...optionsFrom(file), agents: [{ id: "echo", executor: new EchoAgent(), card: echoCard() }] });
    try {
      const keys = (await (await fetch(new URL(DEFAULT_JWKS_PATH, one.url))).json()) as { keys: JWK[] };
      expect(keys.keys.map((k) => [k.kid, k.alg, k.crv])).toEqual([["only", "EdDSA", "Ed25519"]]);
      const json = (await (await fetch(new URL("/.well-known/agent-card.json", one.url))).json()) as JsonObject;
      const card = fromJson(AgentCardSchema, json, { ignoreUnknownFields: true });
      expect(card.signatures).toHaveLength(1);
      expect(JSON.parse(Buffer.from(card.signatures[0]!.protected, "base64url").toString("utf8"))).toEqual({ alg: "EdDSA", typ: "JOSE", kid: "only", jku: new URL(DEFAULT_JWKS_PATH, one.url).toString() });
      expect(await cardVerifier({ keys })(card)).toEqual({ kid: "only", alg: "EdDSA" });
      // A key the hub does not hold verifies nothing.
      await expect(cardVerifier({ keys: jwks })(card)).rejects.toBeInstanceOf(CardSignatureError);
    } finally {
      await one.stop();
    }
  });
});

describe("interop: a card signed by @a2a-js/sdk verifies with ours", () => {
  for (const [alg, kind] of [
    ["ES256", "ec"],
    ["EdDSA", "ed25519"],
  ] as const) {
    it(`an SDK ${alg} signature verifies with cardVerifier; the SDK's empty REQUIRED-field form too`, async () => {
      const pair = kind === "ec" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("ed25519");
      const publicJwk = { ...(pair.publicKey.export({ format: "jwk" }) as JWK), kid: "sdk-key", alg };
      const sign = generateAgentCardSignature(pair.privateKey.export({ format: "jwk" }) as JWK, { alg, typ: "JOSE", kid: "sdk-key" });
      const { json } = await served("/v1/a2a/agents/echo/agent-card.json");
      for (const doc of [{ ...json, signatures: [] }, { ...json, signatures: [], description: "", skills: [] }]) {
        const signed = await sign(SdkAgentCard.fromJSON(doc));
        const ours = fromJson(AgentCardSchema, SdkAgentCard.toJSON(signed) as JsonObject, { ignoreUnknownFields: true });
        expect((await cardVerifier({ keys: { keys: [publicJwk] } })(ours)).kid).toBe("sdk-key");
        // …and refused when a key it trusts did not sign it.
        await expect(cardVerifier({ keys: jwks })(ours)).rejects.toBeInstanceOf(CardSignatureError);
      }
      expect(await importJWK(publicJwk, alg)).toBeTruthy();
    });
  }
});

describe("the client verifies cards when given trusted keys (§8.4.3)", () => {
  let proxy: Server;
  let proxyUrl: string;
  beforeAll(async () => {
    // Serves the hub's signed card with one field changed: a man in the middle.
    proxy = createServer((req, res) => {
      void (async () => {
        const { json } = await served("/.well-known/agent-card.json");
        // Under /unsigned/: the same card with its signatures stripped.
        const doc = req.url?.startsWith("/unsigned/") ? { ...json, signatures: [] } : { ...json, name: "echo (evil twin)" };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
      })();
    });
    await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((done) => proxy.close(() => done())));

  it("A2AClient.connect with verifyCard.jwksUrl accepts the signed card and talks to the agent", async () => {
    const client = await A2AClient.connect(base, { verifyCard: { jwksUrl: new URL("/keys/jwks.json", base).toString() } });
    expect(client.cardSignature).toEqual({ kid: "key-2026-11", alg: "ES256" });
    const res = await client.send({ message: { messageId: "signed-1", role: 1, parts: [{ content: { case: "text", value: "hi" } }] } });
    expect(res.payload.case).toBe("task");
    client.close();
  });

  it("A2AClient.connect refuses a tampered card with CardSignatureError", async () => {
    await expect(A2AClient.connect(proxyUrl, { verifyCard: { keys: jwks } })).rejects.toThrow(CardSignatureError);
    await expect(A2AClient.connect(proxyUrl, { verifyCard: { keys: jwks } })).rejects.toThrow(/"echo \(evil twin\)" failed signature verification/);
  });

  it("A2AClient.connect refuses an unsigned card when it was given trusted keys", async () => {
    await expect(A2AClient.connect(`${proxyUrl}unsigned/`, { verifyCard: { keys: jwks } })).rejects.toThrow(/agent card "[^"]*echo" is not signed/);
    await expect(A2AClient.connect(`${proxyUrl}unsigned/`, { verifyCard: { keys: jwks } })).rejects.toBeInstanceOf(CardSignatureError);
  });

  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((done) => {
      const child = spawn(process.execPath, [join(REPO_ROOT, "bin/a2a-hub.mjs"), ...args], { cwd: tmpdir(), env: { ...process.env, A2A_TOKEN: "" } });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.once("exit", (code) => setImmediate(() => done({ code, stdout, stderr })));
    });
  }

  it("a2a-hub card --verify --jwks URL prints the card and the key that verified it", async () => {
    const r = await cli(["card", base, "--verify", "--jwks", new URL("/keys/jwks.json", base).toString()]);
    expect(r.stderr).toContain("signature verified: kid key-2026-11, ES256");
    expect(r.code).toBe(0);
  }, 30_000);

  it("a2a-hub card --verify without --jwks, or with a file that is not a JWKS, is a usage error (exit 2) saying so", async () => {
    const notJwks = join(dir, "not-jwks.json");
    writeFileSync(notJwks, JSON.stringify({ kty: "OKP" }));
    const [alone, missing, wrong] = await Promise.all([
      cli(["card", base, "--verify"]),
      cli(["card", base, "--verify", "--jwks", join(dir, "no-such-file.json")]),
      cli(["card", base, "--verify", "--jwks", notJwks]),
    ]);
    expect([alone.code, missing.code, wrong.code]).toEqual([2, 2, 2]);
    expect(alone.stderr).toContain("--verify and --jwks go together");
    expect(missing.stderr).toMatch(/--jwks: cannot read a JWKS from .*no-such-file\.json/);
    expect(wrong.stderr).toMatch(/--jwks: .*not-jwks\.json is not a JWKS document/);
    for (const r of [alone, missing, wrong]) expect(r.stdout).toBe("");
  }, 60_000);

  it("a2a-hub card --verify --jwks FILE exits 1 with a clear error for a tampered card", async () => {
    const file = join(dir, "trusted.json");
    writeFileSync(file, JSON.stringify(jwks));
    const r = await cli(["card", proxyUrl, "--verify", "--jwks", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CardSignatureError.*"echo \(evil twin\)" failed signature verification/);
    expect(r.stdout).toBe("");
  }, 30_000);
});
