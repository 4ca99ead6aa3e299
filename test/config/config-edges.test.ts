import { afterAll, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { hashToken } from "../../src/auth/index.js";
import { hostHeaderWarning, parseCli } from "../../src/cli/index.js";
import { buildConfig, ConfigError, hubOptionsFromConfig, readConfigFile } from "../../src/server/index.js";
import { configFiles, errorOf } from "../helpers/config-files.js";

/** Configuration edges: lines of errors, tokens under two tenants, programs checked at start, TLS files, trusted proxies. */

const files = configFiles("a2a-hub-config-edges-");
const dir = files.dir;
afterAll(() => files.remove());

let count = 0;
function fileWith(text: string, ext = "yaml"): string {
  return files.write(`c${count++}.${ext}`, text);
}

/** The ConfigError of building (and turning into HubOptions) a config file. */
function fileError(text: string, ext = "yaml", env: NodeJS.ProcessEnv = {}): ConfigError {
  const src = readConfigFile(fileWith(text, ext));
  return errorOf(() => hubOptionsFromConfig(buildConfig(src, env), src));
}

const A = hashToken("token-a");
const B = hashToken("token-b");
const TLS = resolve("test/fixtures/config-tls");

const BASE = [
  "listen:", //                      1
  "  host: 127.0.0.1", //            2
  "  port: 0", //                    3
  "tenants:", //                     4
  "  - id: acme", //                 5
  "    tokens:", //                  6
  `      - ${A}`, //                 7
  "  - id: beta", //                 8
  `    tokens: [${B}]`, //           9
  "agents:", //                      10
  "  - id: one", //                  11
  "    kind: echo", //               12
  "    card:", //                    13
  "      name: One", //              14
  "      skills:", //                15
  "        - id: s", //              16
  "          name: S", //            17
  "          description: D", //     18
  "          tags: [t]", //          19
  "  - id: two", //                  20
  "    kind: echo", //               21
  "    tenants: [acme]", //          22
];

/** BASE with line `n` (1-based) replaced, or removed when `text` is undefined. */
function baseWith(n: number, text?: string): string {
  const lines = [...BASE];
  if (text === undefined) lines.splice(n - 1, 1);
  else lines[n - 1] = text;
  return `${lines.join("\n")}\n`;
}

describe("config errors name the line the key is on", () => {
  it("the base file is valid", () => {
    const src = readConfigFile(fileWith(baseWith(1, "listen:")));
    expect(hubOptionsFromConfig(buildConfig(src, {}), src).agents!.map((a) => a.id)).toEqual(["one", "two"]);
  });

  it.each([
    ["a scalar in a nested mapping", 3, "  port: 70000", 3, "listen.port"],
    ["an unknown key whose value is a nested mapping (the key's line, not the value's)", 13, "    cardd:", 13, "agents[0].cardd"],
    ["a key in a mapping in a list in a mapping in a list", 19, "          tags: t", 19, "agents[0].card.skills[0].tags"],
    ["an item of a block list", 7, "      - not-a-hash", 7, "tenants[0].tokens[0]"],
    ["an item of a flow list", 22, "    tenants: [acme, ghost]", 22, "agents[1].tenants[1]"],
    ["a missing key: the list item that lacks it", 21, undefined, 20, "agents[1].kind"],
    ["an agent declared twice", 20, "  - id: one", 20, "agents[1].id"],
    ["a top-level key", 10, "agentz:", 10, "agentz"],
  ])("%s", (_what, n, text, line, key) => {
    const e = fileError(baseWith(n, text));
    expect(e.key).toBe(key);
    expect(e.where?.line).toBe(line);
    expect(e.message).toMatch(new RegExp(`\\.yaml:${line}: ${key.replace(/[.[\]]/g, "\\$&")}: `));
  });

  it("in JSON too", () => {
    const json = (port: string, extra = "", token = `"${A}"`) =>
      `{\n  "listen": {\n    "port": ${port}${extra}\n  },\n  "tenants": [\n    {\n      "id": "acme",\n      "tokens": [\n        ${token}\n      ]\n    }\n  ]\n}\n`;
    expect(fileError(json('"x"'), "json")).toMatchObject({ key: "listen.port", where: { line: 3 } });
    expect(fileError(json("0", ',\n    "hots": {\n      "a": 1\n    }'), "json")).toMatchObject({ key: "listen.hots", where: { line: 4 } });
    expect(fileError(json("0", "", '"plain"'), "json")).toMatchObject({ key: "tenants[0].tokens[0]", where: { line: 9 } });
  });

  it("a bad publicUrl is reported where it was written: file line, variable or flag", () => {
    expect(fileError("dataDir: d\npublicUrl: ftp://x\n")).toMatchObject({ key: "publicUrl", where: { line: 2 } });
    expect(errorOf(() => buildConfig(undefined, { A2A_HUB_PUBLIC_URL: "hub.example" })).key).toBe("A2A_HUB_PUBLIC_URL");
    expect(errorOf(() => buildConfig(undefined, {}, { publicUrl: "hub.example" })).key).toBe("--public-url");
  });
});

describe("tenants and tokens", () => {
  it("one token hash listed under two tenants is an error naming both", () => {
    const e = fileError(baseWith(9, `    tokens: [${A}]`));
    expect(e.key).toBe("tenants[1].tokens[0]");
    expect(e.where?.line).toBe(9);
    expect(e.problem).toBe("the same token hash is listed under tenants acme and beta; a token must belong to one tenant");
  });

  it("the same hash twice under one tenant is harmless", () => {
    const src = readConfigFile(fileWith(baseWith(7, `      - ${A}\n      - ${A}`)));
    expect(buildConfig(src, {}).tenants[0]!.tokens).toEqual([A, A]);
  });
});

describe("a command agent's program is checked at start", () => {
  const programs = join(dir, "programs");
  mkdirSync(programs);
  writeFileSync(join(programs, "runs.sh"), "#!/bin/sh\ncat\n");
  chmodSync(join(programs, "runs.sh"), 0o755);
  writeFileSync(join(programs, "plain.txt"), "not a program\n");
  chmodSync(join(programs, "plain.txt"), 0o644);
  const agent = (options: string) => `agents:\n  - id: cmd\n    kind: command\n    options:\n      ${options}\n`;

  it.each([
    ["a path that does not exist", `program: ${programs}/missing.sh`, `cannot run: ${programs}/missing.sh not found`],
    ["a file that is not executable", `program: ${programs}/plain.txt`, `cannot run: ${programs}/plain.txt is not executable`],
    ["a directory", `program: ${programs}`, `cannot run: ${programs} is not a file`],
    ["a relative path, resolved against the agent's cwd", `{ program: ./missing.sh, cwd: ${programs} }`, `cannot run: ${programs}/missing.sh not found`],
    ["a name that is not on PATH", "program: no-such-program-a2a-hub", "cannot run: no-such-program-a2a-hub not found on PATH"],
  ])("%s fails with the path and the line", (_what, options, problem) => {
    const e = fileError(agent(options));
    expect(e.key).toBe("agents[0].options.program");
    expect(e.where?.line).toBe(5);
    expect(e.problem.startsWith(problem)).toBe(true);
  });

  it("an executable path, a relative one under cwd, and a name on PATH start", () => {
    for (const options of [`program: ${programs}/runs.sh`, `{ program: ./runs.sh, cwd: ${programs} }`, "program: sh"]) {
      const src = readConfigFile(fileWith(agent(options)));
      expect(hubOptionsFromConfig(buildConfig(src, {}), src).agents!.map((a) => a.id)).toEqual(["cmd"]);
    }
  });
});

describe("TLS files", () => {
  const cert = join(TLS, "cert.pem");
  const key = join(TLS, "key.pem");

  it("read at start from the flags, the variables or the file, into HubOptions.tls", () => {
    const expected = { cert: readFileSync(cert), key: readFileSync(key) };
    const fromFlags = hubOptionsFromConfig(buildConfig(undefined, {}, { tlsCert: cert, tlsKey: key }));
    expect(fromFlags.tls).toEqual(expected);
    const fromEnv = hubOptionsFromConfig(buildConfig(undefined, { A2A_HUB_TLS_CERT: cert, A2A_HUB_TLS_KEY: key }));
    expect(fromEnv.tls).toEqual(expected);
    const src = readConfigFile(fileWith(`tls:\n  cert: ${cert}\n  key: ${key}\n`));
    expect(hubOptionsFromConfig(buildConfig(src, {}), src).tls).toEqual(expected);
    expect(hubOptionsFromConfig(buildConfig(undefined, {})).tls).toBeUndefined();
  });

  it("both or neither, named where each was given", () => {
    expect(errorOf(() => buildConfig(undefined, {}, { tlsCert: cert }))).toMatchObject({ key: "--tls-cert", problem: expect.stringContaining("--tls-key") });
    expect(errorOf(() => buildConfig(undefined, { A2A_HUB_TLS_KEY: key }))).toMatchObject({ key: "A2A_HUB_TLS_KEY", problem: expect.stringContaining("--tls-cert") });
    expect(fileError(`dataDir: d\ntls:\n  cert: ${cert}\n`)).toMatchObject({ key: "tls.cert", where: { line: 3 } });
    expect(fileError("tls: { cert: a, key: b, chain: c }\n")).toMatchObject({ key: "tls.chain", where: { line: 1 } });
  });

  it("an unreadable file, a file that is not PEM, or a key of another certificate fails at start naming the path", () => {
    const missing = join(TLS, "missing.pem");
    const options = (tlsCert: string, tlsKey: string) => () => hubOptionsFromConfig(buildConfig(undefined, {}, { tlsCert, tlsKey }));
    expect(errorOf(options(missing, key)).message).toContain(`tls.cert: cannot read ${missing}: ENOENT`);
    expect(errorOf(options(cert, missing)).message).toContain(`tls.key: cannot read ${missing}`);
    expect(errorOf(options(key, key)).message).toContain(`${key} is not a PEM certificate`);
    expect(errorOf(options(cert, cert)).message).toContain(`${cert} is not an unencrypted PEM private key`);
    expect(errorOf(options(cert, join(TLS, "other-key.pem"))).message).toBe(`tls.key: ${join(TLS, "other-key.pem")} is not the private key of the certificate in ${cert}`);
  });
});

describe("a non-loopback address", () => {
  const tenants = fileWith(`tenants:\n  - id: acme\n    tokens: ["${A}"]\n`);
  const tls = ["--tls-cert", join(TLS, "cert.pem"), "--tls-key", join(TLS, "key.pem")];

  it("needs no --insecure with TLS and tenants", () => {
    const cli = parseCli(["--host", "0.0.0.0", "--config", tenants, ...tls], {});
    expect(cli.command === "serve" && cli.config.host).toBe("0.0.0.0");
  });

  it("without TLS or without tenants needs --insecure, and the error says which is missing", () => {
    expect(() => parseCli(["--host", "0.0.0.0", "--config", tenants], {})).toThrow(/without TLS \(--tls-cert and --tls-key\): .* or pass --insecure/);
    expect(() => parseCli(["--host", "0.0.0.0", ...tls], {})).toThrow(/without tenants \(authentication is off\): /);
    expect(() => parseCli(["--host", "10.1.2.3"], {})).toThrow(/without TLS .* and without tenants/);
    expect(parseCli(["--host", "0.0.0.0", "--insecure"], {}).command).toBe("serve");
    expect(parseCli(["--host", "127.0.0.5"], {}).command).toBe("serve");
  });

  it("without publicUrl gets a warning saying why", () => {
    const config = buildConfig(undefined, {}, { host: "0.0.0.0", insecure: true });
    expect(hostHeaderWarning(config)).toMatch(/0\.0\.0\.0 without a publicUrl: agent cards will take their URLs from each request's Host header, which any client \(or a proxy\) controls/);
    expect(hostHeaderWarning({ ...config, publicUrl: "https://hub.example/" })).toBeUndefined();
    expect(hostHeaderWarning(buildConfig(undefined, {}))).toBeUndefined();
    expect(hostHeaderWarning({ ...config, trustedProxies: ["10.0.0.0/8"] })).toMatch(/X-Forwarded-\* of the trusted proxies, and from the Host header of any client that reaches the hub directly/);
  });
});

describe("trusted proxies", () => {
  it("IPs, CIDR ranges and `loopback`, from the flag, else the variable, else the file", () => {
    const list = ["loopback", "10.0.0.0/8", "192.0.2.7", "::1", "fd00::/8"];
    expect(buildConfig(undefined, {}, { trustedProxies: list }).trustedProxies).toEqual(list);
    expect(buildConfig(undefined, { A2A_HUB_TRUSTED_PROXIES: "10.0.0.1, 192.168.0.0/16" }).trustedProxies).toEqual(["10.0.0.1", "192.168.0.0/16"]);
    expect(buildConfig(undefined, { A2A_HUB_TRUSTED_PROXIES: "10.0.0.1" }, { trustedProxies: ["loopback"] }).trustedProxies).toEqual(["loopback"]);
    const src = readConfigFile(fileWith("trustedProxies: [loopback, 172.16.0.0/12]\n"));
    expect(buildConfig(src, {}).trustedProxies).toEqual(["loopback", "172.16.0.0/12"]);
    expect(buildConfig(undefined, {}).trustedProxies).toEqual([]);
    const cli = parseCli(["--trusted-proxy", "loopback", "--trusted-proxy", "10.0.0.0/8"], {});
    expect(cli.command === "serve" && cli.config.trustedProxies).toEqual(["loopback", "10.0.0.0/8"]);
    expect((hubOptionsFromConfig(buildConfig(undefined, {}, { trustedProxies: ["loopback"] }))).trustedProxies).toEqual(["loopback"]);
  });

  it("anything else is an error naming the value and where it was given", () => {
    expect(fileError("trustedProxies:\n  - loopback\n  - 10.0.0.0/33\n")).toMatchObject({ key: "trustedProxies[1]", where: { line: 3 } });
    expect(errorOf(() => buildConfig(undefined, {}, { trustedProxies: ["proxy.example"] })).message).toBe(
      '--trusted-proxy: "proxy.example" must be an IP address, a CIDR range (10.0.0.0/8, fd00::/8) or the word "loopback"',
    );
    expect(errorOf(() => buildConfig(undefined, { A2A_HUB_TRUSTED_PROXIES: "10.0.0.1,local" })).key).toBe("A2A_HUB_TRUSTED_PROXIES");
    expect(errorOf(() => buildConfig(undefined, {}, { trustedProxies: ["fd00::/129"] })).key).toBe("--trusted-proxy");
  });
});
