import { afterAll, afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVE_OPTIONS } from "../../src/cli/index.js";
import { LIMIT_KEYS, limitEnvName } from "../../src/server/index.js";
import { get } from "node:https";
import { BIN, cli, npmStart, runProcess, startServing, type Run } from "../helpers/cli-process.js";
import { configVariables } from "../helpers/config-variables.js";
import { killAllServers, REPO_ROOT, removeDir, spawnServer, tempDataDir } from "../helpers/server-process.js";

/** The a2a-hub command line as a newcomer meets it: usage, --help, --version, and arguments it does not know. */

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
const HINT = /--help shows the usage\)\n$/;

/** Runs `fn` over `items`, a few processes at a time (the machine is shared). */
async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, size = 3): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

/** The options each client command's usage must list: the parser's own, then the common ones. */
const COMMON = ["--token T", "--binding B", "--tenant T", "--timeout MS", "--json", "--cacert FILE"];
const CLIENT_OPTIONS: Record<string, string[]> = {
  card: [],
  send: ["--task ID", "--context ID", "--data JSON", "--no-wait"],
  stream: ["--task ID", "--context ID", "--data JSON"],
  get: ["--history N"],
  list: ["--context ID", "--status STATE", "--page-size N", "--page-token T", "--artifacts"],
  cancel: [],
  subscribe: [],
};

const dir = mkdtempSync(join(tmpdir(), "a2a-hub-cli-usage-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => killAllServers());

describe("usage and version", { timeout: 120_000 }, () => {
  it("a2a-hub with no arguments prints the usage, listing every command", async () => {
    const run = await cli([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: a2a-hub <command> \[options\]/);
    for (const command of ["serve", "hash-token", ...Object.keys(CLIENT_OPTIONS)]) expect(run.stdout).toMatch(new RegExp(`(^|  )${command} `, "m"));
    expect((await cli(["help"])).stdout).toBe(run.stdout);
  });

  it("--help and -h on serve print every option with its environment variable and config key, and the variables without a flag", async () => {
    const [help, h, viaHelp] = await Promise.all([cli(["serve", "--help"]), cli(["serve", "-h"]), cli(["help", "serve"])]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^usage: a2a-hub serve \[options\]\n {7}npm start -- \[options\]\n/);
    expect(h.stdout).toBe(help.stdout);
    expect(viaHelp.stdout).toBe(help.stdout);
    const flat = help.stdout.replace(/\s+/g, " ");
    for (const o of SERVE_OPTIONS) {
      expect(help.stdout).toContain(`  --${o.name}${o.value ? ` ${o.value}` : ""} `);
      if (o.env) expect(flat).toContain(`env ${o.env}`);
      if (o.config) expect(flat).toContain(`config ${o.config}`);
    }
    for (const env of ["A2A_HUB_CONFIG", "A2A_HUB_TLS_CERT", "A2A_HUB_TLS_KEY", "A2A_HUB_TRUSTED_PROXIES", "A2A_HUB_PUSH_RETRY_BASE_MS", "A2A_HUB_RATE_BURST", "A2A_HUB_REMOTE_REGISTRY"]) {
      expect(help.stdout).toContain(env);
    }
    for (const key of LIMIT_KEYS) expect(help.stdout).toMatch(new RegExp(`${limitEnvName(key)} +limits\\.${key}\\n`));
    // Every variable the configuration reads is in the help and in the configuration reference's list.
    const reference = readFileSync(join(REPO_ROOT, "docs/configuration.md"), "utf8");
    for (const env of configVariables()) {
      expect(help.stdout, env).toContain(env);
      expect(reference, `docs/configuration.md names ${env}`).toContain(env);
    }
    expect(help.stdout.split("\n").every((line) => line.length <= 80)).toBe(true);
  });

  it("--help and -h on hash-token and on every client command print that command's usage and every option it takes", async () => {
    const commands = ["hash-token", ...Object.keys(CLIENT_OPTIONS)];
    const runs = await inBatches(commands, (c) => cli([c, "--help"]));
    const shorts = await inBatches(commands, (c) => cli([c, "-h"]));
    commands.forEach((command, i) => {
      const help = runs[i]!;
      expect(help.code, `${command} --help`).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: a2a-hub ${command}[ \\n]`));
      expect(shorts[i], `${command} -h`).toMatchObject({ code: 0, stdout: help.stdout, stderr: "" });
      for (const option of [...(CLIENT_OPTIONS[command] ?? []), ...(command === "hash-token" ? [] : COMMON), "--help", "--version"]) {
        expect(help.stdout, `${command} --help lists ${option}`).toContain(`  ${option} `);
      }
      if (command !== "hash-token") expect(help.stdout).toContain("env A2A_TOKEN\n");
    });
  });

  it("--version prints the package.json version, on every command", async () => {
    const runs = await inBatches([["--version"], ["serve", "--version"], ["send", "--version"], ["hash-token", "--version"]], (args) => cli(args));
    for (const run of runs) expect(run).toMatchObject({ code: 0, stdout: `a2a-hub ${VERSION}\n`, stderr: "" });
  });

  it("npm start -- --help prints the serve usage, npm start -- --version the version, npm start -- hash-token --help its usage", async () => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const viaNpm = await runProcess(npm, ["start", "--silent", "--", "--help"], { cwd: REPO_ROOT, timeoutMs: 30_000 });
    expect(viaNpm.code).toBe(0);
    expect(viaNpm.stdout).toMatch(/^usage: a2a-hub serve \[options\]\n/);
    expect(viaNpm.stdout).toContain("  --tls-cert FILE ");
    const [version, hashHelp] = await Promise.all([npmStart(["--version"]), npmStart(["hash-token", "--help"])]);
    expect(version.stdout).toBe(`a2a-hub ${VERSION}\n`);
    expect(hashHelp.stdout).toMatch(/^usage: a2a-hub hash-token\n/);
  });
});

describe("arguments it does not know are errors naming them, never a silent start", { timeout: 120_000 }, () => {
  const cases: Array<[string, string[], RegExp, "bin" | "npm"]> = [
    ["a misspelt option", ["serve", "--prot", "0"], /^a2a-hub: serve: unknown option --prot \(did you mean --port\?\)\n/, "bin"],
    ["a stray word", ["serve", "--port", "0", "stray"], /^a2a-hub: serve: unexpected argument "stray"\n/, "bin"],
    ["a value given to a switch", ["serve", "--insecure=yes"], /^a2a-hub: serve: --insecure takes no value\n/, "bin"],
    ["an option missing its value", ["serve", "--data"], /^a2a-hub: serve: --data needs a value\n/, "bin"],
    ["an option whose value looks like an option", ["serve", "--port", "--data", "x"], /^a2a-hub: serve: --port needs a value\n/, "bin"],
    ["a value starting with '-' (with how to write it)", ["send", "http://127.0.0.1:9/", "--data", "-1"], /^a2a-hub: send: --data needs a value \(for one that starts with "-", write --data=-1\)\n/, "bin"],
    ["a stray word after hash-token", ["hash-token", "now"], /^a2a-hub: hash-token: unexpected argument "now"\n/, "bin"],
    ["a misspelt command", ["sned", "http://127.0.0.1:9/"], /^a2a-hub: unknown command "sned" \(did you mean send\?\)\n/, "bin"],
    ["an option before the command", ["--port", "0"], /^a2a-hub: unknown option --port \(options go after the command/, "bin"],
    ["a misspelt client option", ["get", "http://127.0.0.1:9/", "t1", "--histroy", "2"], /^a2a-hub: get: unknown option --histroy \(did you mean --history\?\)\n/, "bin"],
    ["a stray word after a client command", ["card", "http://127.0.0.1:9/", "extra"], /^a2a-hub: card: unexpected argument "extra"/, "bin"],
    ["a misspelt option to npm start", ["--prot", "0"], /^a2a-hub: serve: unknown option --prot \(did you mean --port\?\)\n/, "npm"],
    ["a stray word to npm start", ["srve"], /^a2a-hub: unknown command "srve" \(did you mean serve\?\)\n/, "npm"],
  ];
  it.each(cases)("%s exits 2 and names it, with a pointer to --help", async (_what, args, message, via) => {
    const data = join(dir, "never");
    const run: Run = via === "bin" ? await cli(args, { env: { A2A_HUB_DATA: data } }) : await npmStart(args, { env: { A2A_HUB_DATA: data } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(HINT);
    expect(run.stdout).toBe("");
  });
});

describe("start-up errors say where, and only command-line errors point at --help", { timeout: 120_000 }, () => {
  it("an error in the config file names file, line and key, without the usage hint", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "listen:\n  host: 127.0.0.1\n  port: 99999\n");
    const run = await cli(["serve", "--config", file]);
    expect(run).toMatchObject({ code: 2, stdout: "", stderr: `a2a-hub: ${file}:3: listen.port: must be a whole number from 0 to 65535\n` });
    const option = await cli(["serve", "--port", "nope"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe('a2a-hub: --port: expected 0..65535, got "nope"\n(a2a-hub serve --help shows the usage)\n');
  });

  it("a command agent whose program is missing fails at start with its path, before listening", async () => {
    const file = join(dir, "command.yaml");
    writeFileSync(file, `agents:\n  - id: tool\n    kind: command\n    options:\n      program: ${dir}/no-such-tool\n`);
    const run = await cli(["serve", "--config", file, "--port", "0", "--data", join(dir, "d1")]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toBe(`a2a-hub: ${file}:5: agents[0].options.program: cannot run: ${dir}/no-such-tool not found\n`);
  });

  it("a TLS file that cannot be read fails at start naming its path", async () => {
    const key = join(REPO_ROOT, "test/fixtures/config-tls/key.pem");
    const run = await cli(["serve", "--tls-cert", join(dir, "none.pem"), "--tls-key", key, "--port", "0", "--data", join(dir, "d2")]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(new RegExp(`^a2a-hub: tls\\.cert: cannot read ${join(dir, "none.pem").replace(/[.]/g, "\\.")}: ENOENT[^\\n]*\\n$`));
  });

  it("binding a non-loopback address without publicUrl warns on stderr why", async () => {
    // The database cannot open under /dev/null, so the hub stops after the warnings and never listens.
    const run = await cli(["serve", "--host", "0.0.0.0", "--insecure", "--port", "0", "--data", "/dev/null/a2a-hub"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      "a2a-hub: WARNING: listening on 0.0.0.0 without a publicUrl: agent cards will take their URLs from each request's Host header, which any client (or a proxy) controls. Set --public-url, or --trusted-proxy for the proxy in front of the hub.\n",
    );
    expect(run.stderr).toContain("a2a-hub: WARNING: --insecure: listening on 0.0.0.0 without TLS or authentication\n");
  });
});

/** The files bin/start.mjs compiled the server into, for processes running now (or killed). */
function compiledFiles(): string[] {
  const dir = join(REPO_ROOT, ".build");
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe("npm start still serves", { timeout: 120_000 }, () => {
  it("with -- --port and --data, compiled at start as npm start runs it, and leaves no compiled file behind", async () => {
    const data = tempDataDir();
    try {
      const server = await spawnServer(data, { launcher: "start" });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await fetch(`${server.url}.well-known/agent-card.json`)).status).toBe(200);
      expect(compiledFiles().some((f) => f.includes(`.${server.pid}.mjs`))).toBe(true);
      server.signal("SIGTERM");
      expect((await server.waitExit(15_000)).code).toBe(0);
      expect(compiledFiles().filter((f) => f.includes(`.${server.pid}.mjs`))).toEqual([]);
    } finally {
      removeDir(data);
    }
  });

  it("with no arguments (settings from A2A_HUB_* variables)", async () => {
    const data = tempDataDir();
    try {
      const hub = await startServing(["--import", "tsx", "src/main.ts"], { env: { A2A_HUB_PORT: "0", A2A_HUB_DATA: data } });
      expect((await fetch(`${hub.url}.well-known/agent-card.json`)).status).toBe(200);
      expect(await hub.stop()).toBe(0);
    } finally {
      removeDir(data);
    }
  });

  it("with --tls-cert and --tls-key: HTTPS on the printed https URL, the card fetched trusting that certificate", async () => {
    const data = tempDataDir();
    const cert = join(REPO_ROOT, "test/fixtures/config-tls/cert.pem");
    const key = join(REPO_ROOT, "test/fixtures/config-tls/key.pem");
    try {
      const hub = await startServing([BIN, "serve", "--port", "0", "--data", data, "--tls-cert", cert, "--tls-key", key]);
      expect(hub.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      const card = await new Promise<{ status?: number; body: string }>((ok, fail) => {
        get(`${hub.url}.well-known/agent-card.json`, { ca: readFileSync(cert) }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (d: string) => (body += d));
          res.on("end", () => ok({ status: res.statusCode, body }));
        }).on("error", fail);
      });
      expect(card.status).toBe(200);
      const urls = (JSON.parse(card.body) as { supportedInterfaces: Array<{ url: string }> }).supportedInterfaces.map((i) => i.url);
      expect(urls.some((u) => u.startsWith("https://127.0.0.1:"))).toBe(true);
      expect(urls.filter((u) => u.startsWith("http:"))).toEqual([]);
      expect(await hub.stop()).toBe(0);
    } finally {
      removeDir(data);
    }
  });
});
