import { afterAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { buildConfig, readConfigFile } from "../../src/server/config/index.js";
import { hashToken } from "../../src/auth/index.js";
import { configFiles, errorOf } from "../helpers/config-files.js";
import { hubOptionsFromConfig } from "../../src/server/index.js";

const files = configFiles("a2a-hub-config-");
afterAll(() => files.remove());
const fileWith = files.write;

const HASH = hashToken("secret-a");

describe("config files", () => {
  it("reads a complete YAML file", () => {
    const src = readConfigFile(
      fileWith(
        "ok.yaml",
        `listen: { host: 127.0.0.1, port: 0 }
publicUrl: https://hub.example.org/
dataDir: ./d
tenants:
  - id: acme
    tokens: ["${HASH}"]
agents:
  - id: helper
    kind: echo
    tenants: [acme]
    card: { name: Helper, description: Helps, version: "2.0", defaultInputModes: [text/plain] }
push: { allowCidrs: ["127.0.0.1/32"], retry: { baseMs: 10, capMs: 20, attempts: 3 } }
rateLimit: { burst: 5, perSecond: 1 }
`,
      ),
    );
    const cfg = buildConfig(src, {});
    expect(cfg.port).toBe(0);
    expect(cfg.tenants).toEqual([{ id: "acme", tokens: [HASH] }]);
    expect(cfg.agents[0]!.card!.name).toBe("Helper");
    expect(cfg.push.retry).toEqual({ baseMs: 10, capMs: 20, attempts: 3 });
    expect(cfg.rateLimit).toEqual({ burst: 5, perSecond: 1 });
  });

  it("names the bad key and its line, in YAML and in JSON", () => {
    const yaml = fileWith("bad.yaml", `agents:\n  - id: a\n    kind: echo\n  - id: b\n    kind: teleport\n`);
    const e1 = errorOf(() => buildConfig(readConfigFile(yaml), {}));
    expect(e1.key).toBe("agents[1].kind");
    expect(e1.message).toBe(`${yaml}:5: agents[1].kind: must be one of echo, command, remote`);
    const json = fileWith("bad.json", `{\n  "tenants": [\n    { "id": "t", "tokens": ["plain-token"] }\n  ]\n}\n`);
    const e2 = errorOf(() => buildConfig(readConfigFile(json), {}));
    expect(e2.key).toBe("tenants[0].tokens[0]");
    expect(e2.message).toMatch(/bad\.json:3: tenants\[0\]\.tokens\[0\]: must be the SHA-256 hex digest/);
  });

  it("refuses unknown keys, unknown tenants and syntax errors", () => {
    expect(errorOf(() => buildConfig(readConfigFile(fileWith("u.yaml", "listen: { hots: x }\n")), {})).key).toBe("listen.hots");
    expect(errorOf(() => buildConfig(readConfigFile(fileWith("t.yaml", "agents:\n  - { id: a, kind: echo, tenants: [ghost] }\n")), {})).key).toBe("agents[0].tenants[0]");
    expect(errorOf(() => readConfigFile(fileWith("s.json", '{ "agents": [ }'))).message).toMatch(/s\.json:1/);
  });

  it("takes flags over the environment over the file", () => {
    const src = readConfigFile(fileWith("p.yaml", "listen: { port: 1000 }\ndataDir: fromfile\n"));
    expect(buildConfig(src, {}).port).toBe(1000);
    expect(buildConfig(src, { A2A_HUB_PORT: "2000" }).port).toBe(2000);
    expect(buildConfig(src, { A2A_HUB_PORT: "2000" }, { port: 3000 }).port).toBe(3000);
    expect(buildConfig(src, { A2A_HUB_DATA: "fromenv" }).dataDir).toBe("fromenv");
    expect(errorOf(() => buildConfig(src, { A2A_HUB_PORT: "many" })).key).toBe("A2A_HUB_PORT");
  });

  it("retries by messageId: off by default, on hub-wide by file or A2A_HUB_RETRIES_BY_MESSAGE_ID, and per agent over the hub", () => {
    expect(buildConfig(undefined, {}).retries).toEqual({});
    expect(hubOptionsFromConfig(buildConfig(undefined, {})).retries).toBeUndefined();
    const src = readConfigFile(
      fileWith(
        "retries.yaml",
        `retries: { byMessageId: true }
agents:
  - { id: a, kind: echo }
  - { id: b, kind: echo, retries: { byMessageId: false } }
`,
      ),
    );
    const config = buildConfig(src, {});
    expect(config.retries).toEqual({ byMessageId: true });
    expect(buildConfig(src, { A2A_HUB_RETRIES_BY_MESSAGE_ID: "0" }).retries).toEqual({ byMessageId: false });
    expect(buildConfig(undefined, { A2A_HUB_RETRIES_BY_MESSAGE_ID: "1" }).retries).toEqual({ byMessageId: true });
    const options = hubOptionsFromConfig(config);
    expect(options.retries).toEqual({ byMessageId: true });
    expect(options.agents?.map((a) => a.retries)).toEqual([undefined, { byMessageId: false }]);
    const bad = readConfigFile(fileWith("retries-bad.yaml", "retries: { byMessageId: yes please }\n"));
    expect(errorOf(() => buildConfig(bad, {})).key).toBe("retries.byMessageId");
    expect(errorOf(() => buildConfig(undefined, { A2A_HUB_RETRIES_BY_MESSAGE_ID: "maybe" })).key).toBe("A2A_HUB_RETRIES_BY_MESSAGE_ID");
  });

  it("with no file: one echo agent, no tenants, loopback", () => {
    const cfg = buildConfig(undefined, {});
    expect(cfg.agents.map((a) => a.id)).toEqual(["echo"]);
    expect(cfg.tenants).toEqual([]);
    expect(cfg.host).toBe("127.0.0.1");
  });
});

describe("command line", () => {
  it("refuses a non-loopback address unless --insecure", async () => {
    const { parseCli } = await import("../../src/cli/index.js");
    expect(() => parseCli(["--host", "0.0.0.0"], {})).toThrow(/--host: refusing to bind 0\.0\.0\.0/);
    const ok = parseCli(["--host", "0.0.0.0", "--insecure"], {});
    expect(ok.command === "serve" && ok.config.host).toBe("0.0.0.0");
  });

  it("`hash-token` prints a new token and the SHA-256 the config stores", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "src/main.ts", "hash-token"], { cwd: join(import.meta.dirname, "../..") });
    const token = /^token:\s+(\S+)$/m.exec(stdout)![1]!;
    const hash = /^sha256:\s+([0-9a-f]{64})$/m.exec(stdout)![1]!;
    expect(hashToken(token)).toBe(hash);
    expect(token.length).toBeGreaterThanOrEqual(43);
  });
});

describe("agent kinds from the config", () => {
  it("builds command and remote agents, and names a bad option by key and line", async () => {
    const { hubOptionsFromConfig } = await import("../../src/server/index.js");
    const good = readConfigFile(
      fileWith(
        "kinds.yaml",
        `agents:
  - id: wc
    kind: command
    options: { program: /usr/bin/wc, args: ["-w"] }
  - id: far
    kind: remote
    options: { url: "http://127.0.0.1:9/" }
`,
      ),
    );
    const options = hubOptionsFromConfig(buildConfig(good, {}), good);
    expect(options.agents!.map((a) => a.id)).toEqual(["wc", "far"]);
    const bad = fileWith("badkind.yaml", `agents:\n  - id: wc\n    kind: command\n    options:\n      program: /usr/bin/wc\n      args: "-w"\n`);
    const src = readConfigFile(bad);
    const e = errorOf(() => hubOptionsFromConfig(buildConfig(src, {}), src));
    expect(e.key).toBe("agents[0].options.args");
    expect(e.message).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:6: agents\\[0\\]\\.options\\.args`));
  });

  it("loads a registry of remote agents, without adding the default echo agent beside them", async () => {
    const { hubOptionsFromConfig } = await import("../../src/server/index.js");
    const registry = fileWith("a2a_agents.json", JSON.stringify({ agents: [{ name: "weather", url: "http://127.0.0.1:9/" }] }));
    const src = readConfigFile(fileWith("withreg.yaml", `remoteRegistry: ${registry}\n`));
    const options = hubOptionsFromConfig(buildConfig(src, {}), src);
    expect(options.agents!.map((a) => a.id)).toEqual(["weather"]);
    // Agents listed beside a registry are kept.
    const both = readConfigFile(fileWith("both.yaml", `remoteRegistry: ${registry}\nagents:\n  - { id: helper, kind: echo }\n`));
    expect(hubOptionsFromConfig(buildConfig(both, {}), both).agents!.map((a) => a.id)).toEqual(["helper", "weather"]);
    // A registry that lists nothing, with no agents configured, is a configuration error, not a hub without agents.
    const empty = fileWith("empty.json", JSON.stringify({ agents: [] }));
    const none = readConfigFile(fileWith("none.yaml", `remoteRegistry: ${empty}\n`));
    expect(errorOf(() => hubOptionsFromConfig(buildConfig(none, {}), none)).key).toBe("remoteRegistry");
  });
});
