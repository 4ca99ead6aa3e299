import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cli } from "../helpers/cli-process.js";
import { missingCommands, skipsWithout } from "../helpers/outside-tools.js";
import { debianImage, nodeBaseImage, ok, Podman } from "../helpers/podman.js";
import { freePort, REPO_ROOT } from "../helpers/server-process.js";

/**
 * The Containerfile, built and run with Debian's podman. No image registry is
 * reachable, so the base (the official Node image by default) is a stand-in
 * made from Debian's minbase (mmdebstrap) and the project's own Node 24,
 * cached between runs; see test/helpers/podman.ts.
 */

const skip = skipsWithout({
  file: "container.test.ts",
  what: "the container image tests",
  missing: missingCommands(["podman", "mmdebstrap"]),
  packages: "podman mmdebstrap runc",
  requiredBy: "A2A_HUB_REQUIRE_CONTAINER",
});

const TOKEN = "container-test-token-3f9a";
const IMAGE = "localhost/a2a-hub-test:latest";
const NAME = `a2a-hub-test-${process.pid}`;
const VOLUME = `a2a-hub-test-data-${process.pid}`;

describe.skipIf(skip)("the container image", () => {
  let podman: Podman;
  const config = mkdtempSync(join(tmpdir(), "a2a-hub-container-"));

  beforeAll(async () => {
    const debian = await debianImage();
    podman = await Podman.probe(debian);
    const base = await nodeBaseImage(podman, debian);
    const started = Date.now();
    ok(await podman.build(["--build-arg", `BASE=${base}`, "-t", IMAGE, REPO_ROOT], 900_000), "podman build");
    const size = (await podman.cmd(["image", "inspect", IMAGE, "--format", "{{.Size}}"])).stdout.trim();
    console.log(`container.test.ts: built ${IMAGE} in ${((Date.now() - started) / 1000).toFixed(0)} s, ${(Number(size) / 1e6).toFixed(0)} MB on a ${base} base`);
    // The hub's config and TLS files, mounted read-only and readable by the image's user (the key is a test fixture).
    writeFileSync(
      join(config, "hub.yaml"),
      `tenants:\n  - id: acme\n    tokens: ["${createHash("sha256").update(TOKEN).digest("hex")}"]\nagents:\n  - { id: helper, kind: echo }\n`,
    );
    for (const f of ["cert.pem", "key.pem"]) copyFileSync(join(REPO_ROOT, "test/fixtures/config-tls", f), join(config, f));
    for (const f of ["hub.yaml", "cert.pem", "key.pem"]) chmodSync(join(config, f), 0o644);
    chmodSync(config, 0o755);
  }, 1_800_000);

  afterAll(async () => {
    if (podman) {
      await podman.cmd(["rm", "--force", "--time", "0", NAME]);
      await podman.cmd(["volume", "rm", "--force", VOLUME]);
    }
    rmSync(config, { recursive: true, force: true });
  });

  it("runs as a non-root user, with /data a volume, a HEALTHCHECK and SIGTERM to stop", async () => {
    const inspect = JSON.parse(ok(await podman.cmd(["image", "inspect", IMAGE]), "podman image inspect").stdout) as Array<{
      Config: { User: string; Volumes?: Record<string, unknown>; StopSignal?: string; Env: string[]; ExposedPorts?: Record<string, unknown> };
      Healthcheck?: { Test: string[] };
    }>;
    const image = inspect[0]!;
    expect(image.Config.User).toBe("a2a-hub");
    expect(Object.keys(image.Config.Volumes ?? {})).toEqual(["/data"]);
    expect(Object.keys(image.Config.ExposedPorts ?? {})).toEqual(["41241/tcp"]);
    expect(image.Config.StopSignal).toBe("SIGTERM");
    expect(image.Config.Env).toEqual(expect.arrayContaining(["A2A_HUB_HOST=0.0.0.0", "A2A_HUB_PORT=41241", "A2A_HUB_DATA=/data"]));
    expect(image.Healthcheck?.Test).toEqual(["CMD", "node", "/app/deploy/healthcheck.mjs"]);
    const id = await podman.run(["--rm", "--entrypoint", "id", IMAGE, "-u"]);
    expect(ok(id, "id -u").stdout.trim()).toBe("10001");
  });

  it("refuses to listen on 0.0.0.0 without TLS and tenants, saying what is missing", async () => {
    const run = await podman.run(["--rm", IMAGE], 120_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("a2a-hub: --host: refusing to bind 0.0.0.0, which is not loopback, without TLS");
  });

  it("serves JSON-RPC and gRPC over TLS with tenants, configured by environment; reports healthy; drains a stream on podman stop and exits 0; keeps its tasks in /data", async () => {
    const port = await freePort();
    const url = `https://127.0.0.1:${port}/`;
    const cacert = join(config, "cert.pem");
    const started = await podman.run(
      [
        "--detach", "--name", NAME,
        "--publish", `127.0.0.1:${port}:41241`,
        "--volume", `${VOLUME}:/data`,
        "--volume", `${config}:/etc/a2a-hub:ro`,
        "--env", "A2A_HUB_CONFIG=/etc/a2a-hub/hub.yaml",
        "--env", "A2A_HUB_TLS_CERT=/etc/a2a-hub/cert.pem",
        "--env", "A2A_HUB_TLS_KEY=/etc/a2a-hub/key.pem",
        "--env", `A2A_HUB_PUBLIC_URL=${url}`,
        IMAGE,
      ],
      120_000,
    );
    ok(started, "podman run");
    await listening(1);

    const health = await podman.cmd(["healthcheck", "run", NAME]);
    expect(health.code, health.stdout + health.stderr).toBe(0);

    // The project's own client (the a2a-hub command), trusting the hub's certificate, over both bindings.
    const env = { A2A_TOKEN: TOKEN };
    for (const binding of ["jsonrpc", "grpc"]) {
      const sent = await cli(["send", "--binding", binding, "--cacert", cacert, "--json", url, `hello over ${binding}`], { env });
      expect(sent.code, sent.stderr).toBe(0);
      const task = (JSON.parse(sent.stdout) as { task: { status: { state: string }; artifacts: Array<{ parts: Array<{ text: string }> }> } }).task;
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(task.artifacts[0]!.parts[0]!.text).toBe(`hello over ${binding}`);
    }
    const refused = await cli(["send", "--binding", "grpc", "--cacert", cacert, url, "no token"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Unauthenticated|UNAUTHENTICATED|401/);

    // A stream in flight when podman stops the container: the hub drains it to its end, then exits 0.
    const stream = spawn(process.execPath, [BIN, "stream", "--binding", "grpc", "--cacert", cacert, "--json", url, "slow 3000"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    stream.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const streamExit = new Promise<number | null>((r) => stream.once("exit", r));
    await until(() => out.includes("TASK_STATE_WORKING"), 30_000, () => `the stream never reached WORKING:\n${out}`);
    const stopped = await podman.cmd(["stop", "--time", "30", NAME], 60_000);
    ok(stopped, "podman stop");
    expect(await streamExit).toBe(0);
    const events = out.trim().split("\n").map((l) => JSON.parse(l) as { task?: { id: string }; statusUpdate?: { taskId: string; status: { state: string } } });
    expect(events.at(-1)?.statusUpdate?.status.state).toBe("TASK_STATE_COMPLETED");
    const taskId = events[0]!.task!.id;
    const state = JSON.parse(ok(await podman.cmd(["inspect", NAME, "--format", "{{json .State}}"]), "podman inspect").stdout) as { ExitCode: number };
    expect(state.ExitCode).toBe(0);
    const logs = await podman.cmd(["logs", NAME]);
    expect(logs.stderr + logs.stdout).toContain("a2a-hub: SIGTERM, stopping");

    // Started again on the same volume: the drained task is there, completed, not failed by a restart.
    ok(await podman.cmd(["start", NAME], 120_000), "podman start");
    await listening(2);
    const got = await cli(["get", "--cacert", cacert, "--json", url, taskId], { env });
    expect(got.code, got.stderr).toBe(0);
    expect((JSON.parse(got.stdout) as { status: { state: string } }).status.state).toBe("TASK_STATE_COMPLETED");
    ok(await podman.cmd(["stop", "--time", "30", NAME], 60_000), "podman stop");
  }, 300_000);

  /** Waits until the container's log says it is listening for the `n`th time (a restart appends to the log). */
  async function listening(n: number): Promise<void> {
    let logs = "";
    await until(
      async () => {
        const ran = await podman.cmd(["logs", NAME]);
        logs = ran.stdout + ran.stderr;
        const running = (await podman.cmd(["inspect", NAME, "--format", "{{.State.Running}}"])).stdout.trim();
        if (running !== "true") throw new Error(`the container stopped:\n${logs}`);
        return (logs.match(/a2a-hub listening on https:\/\//g) ?? []).length >= n;
      },
      90_000,
      () => `the hub did not say it was listening:\n${logs}`,
    );
  }
});

/** Polls `check` every 250 ms until it holds; fails with `message` after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms: number, message: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message());
    await new Promise((r) => setTimeout(r, 250));
  }
}
