import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { REPO_ROOT } from "../helpers/server-process.js";
import { onPath, skipsWithout } from "../helpers/outside-tools.js";

const run = promisify(execFile);
const GOCODE = "/usr/share/gocode";

/** The first python3 that has Debian's python3-grpcio and python3-protobuf (pyenv shims may not). */
function pythonWithGrpc(): string | undefined {
  for (const python of ["/usr/bin/python3", "python3"]) {
    try {
      execFileSync(python, ["-c", "import grpc, google.protobuf"], { stdio: "ignore" });
      return python;
    } catch {
      // next candidate
    }
  }
  return undefined;
}

const python = pythonWithGrpc();
const pythonMissing = !python
  ? "python3-grpcio/python3-protobuf"
  : !onPath("protoc")
    ? "protoc (protobuf-compiler)"
    : !onPath("grpc_python_plugin")
      ? "grpc_python_plugin (protobuf-compiler-grpc)"
      : undefined;
const goMissing = !onPath("go")
  ? "go (golang-go)"
  : !existsSync(join(GOCODE, "src/google.golang.org/grpc"))
    ? "golang-google-grpc-dev"
    : !onPath("protoc-gen-go-grpc")
      ? "protoc-gen-go-grpc"
      : undefined;

/** What each generated client prints: a send, a stream, a get and a refused call's error. */
interface ClientReport {
  send: { task?: { id?: string; status?: { state?: string }; artifacts?: { parts?: { text?: string }[] }[] } };
  stream: string[];
  get: { id?: string; status?: { state?: string }; artifacts?: { parts?: { text?: string }[] }[] };
  error: { code: string; details: string; errorInfo: { reason: string; domain: string }[] | null } | null;
}

let t: TestHub;
let out: string;
beforeAll(async () => {
  t = await startTestHub();
  out = mkdtempSync(join(tmpdir(), "a2a-hub-codegen-"));
});
afterAll(async () => {
  await t?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

/** Runs scripts/generate-client.sh, the script behind npm run generate:<lang>, once per language. */
const generated = new Map<string, Promise<string>>();
function generate(lang: "python" | "go"): Promise<string> {
  let dir = generated.get(lang);
  if (!dir) {
    dir = run("bash", [join(REPO_ROOT, "scripts/generate-client.sh"), lang, out], { cwd: REPO_ROOT, timeout: 120_000 }).then(() => join(out, lang));
    generated.set(lang, dir);
  }
  return dir;
}

/** The one ```python block of docs/development.md. */
function readmePython(): string {
  const blocks = [...readFileSync(join(REPO_ROOT, "docs/development.md"), "utf8").matchAll(/^```python\n([\s\S]*?)^```$/gm)];
  expect(blocks).toHaveLength(1);
  return blocks[0]![1]!;
}

function hostPort(): string {
  return new URL(t.url).host;
}

function expectReport(report: ClientReport, sentText: string, streamedText: string): void {
  expect(report.send.task?.status?.state).toBe("TASK_STATE_COMPLETED");
  expect(report.send.task?.artifacts?.[0]?.parts?.[0]?.text).toBe(sentText);
  // §3.1.2: the stream opens with the Task and ends on a terminal status.
  expect(report.stream[0]).toBe("task");
  expect(report.stream.length).toBeGreaterThan(1);
  expect(report.get.status?.state).toBe("TASK_STATE_COMPLETED");
  expect(report.get.artifacts?.[0]?.parts?.[0]?.text).toBe(streamedText);
  // §3.3.4 / §10: the gRPC status carries google.rpc.ErrorInfo with the A2A reason.
  expect(report.error?.code).toMatch(/^NOT_?FOUND$/i);
  expect(report.error?.errorInfo).toEqual([{ reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }]);
}

/**
 * A machine without Debian's protoc plugins and gRPC libraries skips a client's tests, saying so in one
 * line with the packages that enable them; with A2A_HUB_REQUIRE_CLIENTS set (.ci/run sets it) that is an error.
 */
function noticeSkip(client: string, missing: string | undefined, packages: string): void {
  skipsWithout({ file: "client-codegen.test.ts", what: `the ${client} client tests`, missing: missing ? [missing] : [], packages, requiredBy: "A2A_HUB_REQUIRE_CLIENTS" });
}
noticeSkip("Python", pythonMissing, "protobuf-compiler protobuf-compiler-grpc python3-grpcio python3-protobuf");
noticeSkip("Go", goMissing, "golang-go golang-google-protobuf-dev golang-google-grpc-dev protoc-gen-go-grpc");

describe("clients in other languages, generated from proto/ with buf", () => {
  it.skipIf(pythonMissing)(
    "the Python client (protoc python + grpc_python_plugin) sends, streams, gets a task and reads an ErrorInfo reason over gRPC",
    async () => {
      const dir = await generate("python");
      expect(existsSync(join(dir, "a2a/v1/a2a_pb2_grpc.py"))).toBe(true);
      const { stdout } = await run(python!, [join(REPO_ROOT, "test/fixtures/python-client.py"), dir, hostPort()], { timeout: 60_000 });
      const report = JSON.parse(stdout) as ClientReport;
      expectReport(report, "hello from python", "streamed from python");
      // The task the streamed send created is the one the hub stores.
      const stored = await t.client("grpc").getTask({ id: report.get.id! });
      expect(stored.history[0]?.messageId).toBe("py-2");
    },
    180_000,
  );

  it.skipIf(pythonMissing)("the Python example in docs/development.md runs as written against a live hub (its address aside) and prints COMPLETED", async () => {
    const dir = await generate("python");
    const example = readmePython();
    expect(example).toContain('"127.0.0.1:41241"');
    const script = join(out, "readme-example.py");
    writeFileSync(script, example.replace('"127.0.0.1:41241"', JSON.stringify(hostPort())));
    // "with clients/python on sys.path", as its comment says.
    const { stdout } = await run(python!, [script], { env: { ...process.env, PYTHONPATH: dir }, timeout: 60_000 });
    expect(stdout.trim()).toBe("3"); // TaskState.TASK_STATE_COMPLETED
  }, 180_000);

  it.skipIf(goMissing)(
    "the Go client (protoc-gen-go + protoc-gen-go-grpc) sends, streams, gets a task and reads an ErrorInfo reason over gRPC",
    async () => {
      const dir = await generate("go");
      // GOPATH mode with Debian's Go sources: the module proxy is unreachable here.
      const gopath = join(out, "gopath");
      mkdirSync(join(gopath, "src/a2acheck"), { recursive: true });
      cpSync(dir, join(gopath, "src/a2aclient"), { recursive: true });
      cpSync(join(REPO_ROOT, "test/fixtures/go-client/main.go"), join(gopath, "src/a2acheck/main.go"));
      const env = {
        ...process.env,
        GOPATH: `${gopath}:${GOCODE}`,
        GO111MODULE: "off",
        GOFLAGS: "",
        GOCACHE: process.env.GOCACHE ?? join(REPO_ROOT, "node_modules/.cache/a2a-hub/go-build"),
      };
      const binary = join(gopath, "a2acheck");
      await run("go", ["build", "-o", binary, "."], { cwd: join(gopath, "src/a2acheck"), env, timeout: 170_000 });
      const { stdout } = await run(binary, [hostPort()], { timeout: 60_000 });
      const report = JSON.parse(stdout) as ClientReport;
      expectReport(report, "hello from go", "streamed from go");
      const stored = await t.client("grpc").getTask({ id: report.get.id! });
      expect(stored.history[0]?.messageId).toBe("go-2");
    },
    300_000,
  );
});

describe("buf breaking guards the committed contract", () => {
  it("proto/ has no wire or JSON break against contract/a2a-v1.binpb", async () => {
    const r = await run(join(REPO_ROOT, "node_modules/.bin/buf"), ["breaking", "proto", "--against", "contract/a2a-v1.binpb"], { cwd: REPO_ROOT, timeout: 60_000 }).catch(
      (e: { code?: number; stdout?: string; stderr?: string }) => e,
    );
    expect(r, `buf breaking failed:\n${r.stdout ?? ""}${r.stderr ?? ""}`).not.toHaveProperty("code");
  });

  it("a renumbered field fails buf breaking (WIRE_JSON)", async () => {
    const copy = join(out, "broken");
    cpSync(join(REPO_ROOT, "proto"), join(copy, "proto"), { recursive: true });
    cpSync(join(REPO_ROOT, "buf.yaml"), join(copy, "buf.yaml"));
    const file = join(copy, "proto/a2a/v1/a2a.proto");
    const text = readFileSync(file, "utf8");
    const broken = text.replace("string message_id = 1 [(google.api.field_behavior) = REQUIRED];", "string message_id = 9 [(google.api.field_behavior) = REQUIRED];");
    expect(broken).not.toBe(text);
    writeFileSync(file, broken);
    const r = await run(join(REPO_ROOT, "node_modules/.bin/buf"), ["breaking", "proto", "--against", join(REPO_ROOT, "contract/a2a-v1.binpb")], { cwd: copy, timeout: 60_000 }).catch(
      (e: { code?: number; stdout?: string; stderr?: string }) => e,
    );
    expect(r).toHaveProperty("code");
    expect(`${r.stdout ?? ""}`).toMatch(/Message\.message_id|message_id/);
  });
});
