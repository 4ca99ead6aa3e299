import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { REPO_ROOT } from "../helpers/server-process.js";

const run = promisify(execFile);
const BUF = join(REPO_ROOT, "node_modules/.bin/buf");

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

/** `buf curl` against the hub with the schema read from proto/, as a third-party gRPC client would. */
async function bufCurl(protocol: "grpc" | "grpcweb" | "connect", method: string, body: unknown): Promise<unknown> {
  const args = ["curl", "--protocol", protocol, "--schema", "proto", "--data", JSON.stringify(body), `${t.url}lf.a2a.v1.A2AService/${method}`];
  if (protocol === "grpc") args.splice(3, 0, "--http2-prior-knowledge");
  const { stdout } = await run(BUF, args, { cwd: REPO_ROOT, timeout: 20_000 });
  return JSON.parse(stdout);
}

describe("buf curl, an independent gRPC client built from proto/", () => {
  it("SendMessage over gRPC (h2c) completes the task and echoes the text in ProtoJSON", async () => {
    const text = "hello from buf curl ✓";
    const res = (await bufCurl("grpc", "SendMessage", {
      message: { messageId: "buf-curl-1", role: "ROLE_USER", parts: [{ text }] },
    })) as { task?: { id?: string; status?: { state?: string }; artifacts?: { parts?: { text?: string }[] }[]; history?: { messageId?: string; role?: string }[] } };
    expect(res.task?.status?.state).toBe("TASK_STATE_COMPLETED");
    expect(res.task?.artifacts?.[0]?.parts?.[0]?.text).toBe(text);
    expect(res.task?.history?.[0]).toMatchObject({ messageId: "buf-curl-1", role: "ROLE_USER" });

    // The task buf curl created is the one the hub stores.
    const stored = await t.client("grpc").getTask({ id: res.task!.id! });
    expect(stored.artifacts[0]!.parts[0]!.content.value).toBe(text);
  });

  it("GetTask over gRPC-Web and Connect read back the same task", async () => {
    const sent = (await bufCurl("grpc", "SendMessage", {
      message: { messageId: "buf-curl-2", role: "ROLE_USER", parts: [{ text: "read me back" }] },
    })) as { task: { id: string } };
    for (const protocol of ["grpcweb", "connect"] as const) {
      const got = (await bufCurl(protocol, "GetTask", { id: sent.task.id })) as { id?: string; status?: { state?: string }; artifacts?: { parts?: { text?: string }[] }[] };
      expect(got.id, protocol).toBe(sent.task.id);
      expect(got.status?.state, protocol).toBe("TASK_STATE_COMPLETED");
      expect(got.artifacts?.[0]?.parts?.[0]?.text, protocol).toBe("read me back");
    }
  });
});
