import { afterEach, describe, expect, it } from "vitest";
import { equals } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskState, type SendMessageResponse, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { hubClient, withSeqs, type HubClient, type SeenEvent } from "../helpers/hub-clients.js";
import { ackProblem, cancelNext, TERMINAL, type Ack, type Cancelable } from "../helpers/acknowledged.js";
import { foldLog, foldProblems } from "../helpers/event-log.js";
import { readHubDb } from "../helpers/hub-database.js";
import { textOf } from "../helpers/message-text.js";
import { textRequest } from "../helpers/messages.js";
import { seededRandom, seedFromEnv, type SeededRandom } from "../helpers/seeded-random.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir, within } from "../helpers/server-process.js";

/*
 * Crash safety under load: the server runs as a child process (launcher
 * "node", so SIGKILL hits the server itself) on one data directory that
 * survives 20 SIGKILLs at random moments of a concurrent mixed load. What
 * a client was told must still be true after every restart, nothing may be
 * left in flight, event logs must have no gaps and the file must be sound.
 */

const CYCLES = Number(process.env.CRASH_CYCLES ?? 20);
const SEED = seedFromEnv("CRASH_SEED", 90210);
/** Load loops per cycle, spread over the bindings below. */
const LOOPS = Number(process.env.CRASH_LOOPS ?? 9);
const LOOP_BINDINGS = ["grpc", "connect-h1", "jsonrpc"] as const;
const RESTARTED = /server restarted/i;

/** Everything the load learned, across all cycles. */
interface Ledger {
  /** The latest acknowledgement per task id. */
  readonly acks: Map<string, Ack>;
  /** Tasks the client asked to cancel (whether or not the answer came back). */
  readonly cancelSent: Set<string>;
  /** The messageIds of follow-ups the client sent, per task. */
  readonly followUps: Map<string, Set<string>>;
  /** Streams as the client saw them, whole or cut by a crash. */
  readonly streams: { taskId: string; cycle: number; seen: SeenEvent[] }[];
  /** INPUT_REQUIRED tasks nobody has followed up yet (they survive restarts). */
  readonly waiting: string[];
  /** Failures that happened while the server was up: each is a test failure. */
  readonly errors: string[];
  readonly ops: Map<string, number>;
}

/** One cycle's run of the load: the loops stop sending once `killing` is set. */
interface LoadRun {
  readonly cycle: number;
  readonly rnd: SeededRandom;
  readonly ledger: Ledger;
  /** Slow tasks started this cycle that a loop may cancel. */
  readonly cancelable: Cancelable[];
  killing: boolean;
}

let dataDir: string | undefined;
afterEach(async () => {
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

function ack(run: LoadRun, op: string, task: Task, extra: { mayComplete?: boolean } = {}): void {
  run.ledger.acks.set(task.id, { cycle: run.cycle, op, task, ...extra });
}

function taskOfResponse(res: SendMessageResponse): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value;
}

/** One operation of the load, picked at random; it records what it was told. */
async function step(run: LoadRun, client: HubClient, n: number): Promise<void> {
  const { rnd, ledger } = run;
  const roll = rnd.next();
  const count = (op: string): string => {
    ledger.ops.set(op, (ledger.ops.get(op) ?? 0) + 1);
    return op;
  };
  if (roll < 0.18) {
    const op = count("send hello");
    ack(run, op, taskOfResponse(await client.send(textRequest(`hello ${run.cycle}.${n} ✓`))));
  } else if (roll < 0.3) {
    const op = count("send stream 5");
    ack(run, op, taskOfResponse(await client.send(textRequest("stream 5"))));
  } else if (roll < 0.38) {
    const op = count("send slow (blocking)");
    ack(run, op, taskOfResponse(await client.send(textRequest(`slow ${rnd.int(50, 250)}`))), { mayComplete: true });
  } else if (roll < 0.52) {
    // Long ones can only end by a cancel or a crash; short ones may also complete.
    const long = rnd.chance(0.6);
    const op = count(long ? "send slow 60000 (returnImmediately)" : "send slow short (returnImmediately)");
    const task = taskOfResponse(await client.send(textRequest(long ? "slow 60000" : `slow ${rnd.int(100, 400)}`, { configuration: { returnImmediately: true } })));
    ack(run, op, task, { mayComplete: !long });
    run.cancelable.push({ id: task.id, mayComplete: !long });
  } else if (roll < 0.64) {
    if (run.cancelable.length === 0) return;
    const op = count("cancel");
    // §3.1.5: a short slow task may have completed first.
    await cancelNext(client, run.cancelable, ledger.cancelSent, (t) => t.mayComplete, (task, t) => ack(run, op, task, { mayComplete: t.mayComplete }));
  } else if (roll < 0.8) {
    const op = count("stream stream 5");
    const seen: SeenEvent[] = [];
    let taskId: string | undefined;
    try {
      for await (const e of withSeqs(client.stream(textRequest("stream 5")))) {
        if (seen.length === 0 && e.event.payload.case === "task") {
          taskId = e.event.payload.value.id;
          ledger.streams.push({ taskId, cycle: run.cycle, seen });
        }
        seen.push(e);
      }
    } finally {
      // A whole stream is acknowledged as the task it describes.
      const last = seen.at(-1)?.event.payload;
      if (taskId && last?.case === "statusUpdate" && last.value.status?.state === TaskState.COMPLETED) {
        ack(run, op, foldLog(seen.map((e, i) => ({ seq: i + 1, event: e.event }))));
      }
    }
  } else if (roll < 0.9) {
    const op = count("send input-required");
    const task = taskOfResponse(await client.send(textRequest("input-required")));
    ack(run, op, task);
    if (task.status?.state === TaskState.INPUT_REQUIRED) ledger.waiting.push(task.id);
  } else {
    const id = ledger.waiting.shift();
    if (!id) return;
    const op = count("follow-up");
    const req = textRequest(`answer ${run.cycle}.${n}`, { taskId: id });
    let mine = ledger.followUps.get(id);
    if (!mine) ledger.followUps.set(id, (mine = new Set()));
    mine.add(req.message!.messageId);
    ack(run, op, taskOfResponse(await client.send(req)));
  }
}

/** A load loop: operations back to back until the kill; failures before it are errors. */
async function loop(run: LoadRun, client: HubClient, index: number): Promise<void> {
  for (let n = 0; !run.killing; n++) {
    try {
      await step(run, client, index * 10_000 + n);
    } catch (e) {
      if (!run.killing) run.ledger.errors.push(`cycle ${run.cycle}, ${client.binding} loop ${index}: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
  }
}


/** Reads back every acknowledged task in `ids` and returns the disagreements. */
async function checkAcks(client: HubClient, ledger: Ledger, ids: Iterable<string>, read?: Map<string, Task>): Promise<{ checked: number; problems: string[] }> {
  const problems: string[] = [];
  let checked = 0;
  for (const id of ids) {
    const a = ledger.acks.get(id)!;
    const now = await client.get(id);
    read?.set(id, now);
    const p = ackProblem(a, now, ledger, { allowed: true, why: RESTARTED, what: "server restarted" });
    checked++;
    if (p) problems.push(p);
  }
  return { checked, problems };
}

/** Every task in the store, through ListTasks pages of 100: none in flight, every FAILED one failed by the restart. */
async function checkAllTasks(client: HubClient): Promise<{ tasks: number; problems: string[]; byState: Map<TaskState, number> }> {
  const problems: string[] = [];
  const byState = new Map<TaskState, number>();
  const seen = new Set<string>();
  let pageToken = "";
  for (;;) {
    const page = await client.list({ pageSize: 100, pageToken, historyLength: 0 });
    for (const t of page.tasks) {
      const s = t.status?.state ?? TaskState.UNSPECIFIED;
      byState.set(s, (byState.get(s) ?? 0) + 1);
      if (seen.has(t.id)) problems.push(`task ${t.id} listed twice`);
      seen.add(t.id);
      if (!TERMINAL.has(s) && s !== TaskState.INPUT_REQUIRED) problems.push(`task ${t.id} is ${TaskState[s]} after the restart`);
      if (s === TaskState.FAILED && !RESTARTED.test(textOf(t.status?.message))) problems.push(`task ${t.id} FAILED without "server restarted": ${textOf(t.status?.message)}`);
    }
    if (!page.nextPageToken) {
      if (page.totalSize !== seen.size) problems.push(`ListTasks totalSize ${page.totalSize}, listed ${seen.size}`);
      return { tasks: seen.size, problems, byState };
    }
    pageToken = page.nextPageToken;
  }
}

/** The on-disk audit: integrity_check "ok" and every event log 1..n. */
function auditDisk(dir: string, when: string): { tasks: number; events: number } {
  return readHubDb(dir, (db) => {
    expect(db.integrity(), `integrity_check ${when}`).toBe("ok");
    expect(db.logProblems(), `event logs ${when}`).toEqual([]);
    expect(db.stateCountProblems(), `state counters ${when}`).toEqual([]);
    return db.counts();
  });
}

describe("crash safety under load", () => {
  it(`keeps every acknowledged answer through ${CYCLES} SIGKILLs at random moments of a mixed concurrent load`, async () => {
    const started = Date.now();
    dataDir = tempDataDir();
    const rnd = seededRandom(SEED);
    const ledger: Ledger = { acks: new Map(), cancelSent: new Set(), followUps: new Map(), streams: [], waiting: [], errors: [], ops: new Map() };
    const context = `seed ${SEED}`;
    let previous: string[] = [];
    let checkedAfterRestart = 0;
    const restartProblems: string[] = [];

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const server = await spawnServer(dataDir);
      const check = await hubClient(server.url, "connect-h1", { timeoutMs: 0 });
      if (cycle > 0) {
        // What the previous cycle was told, read back after its crash.
        const acks = await checkAcks(check, ledger, previous);
        checkedAfterRestart += acks.checked;
        restartProblems.push(...acks.problems.map((p) => `after crash ${cycle}: ${p}`));
        const all = await checkAllTasks(check);
        restartProblems.push(...all.problems.map((p) => `after crash ${cycle}: ${p}`));
        // INPUT_REQUIRED tasks a crashed follow-up may have moved on leave the waiting pool.
        for (let i = ledger.waiting.length - 1; i >= 0; i--) {
          if ((await check.get(ledger.waiting[i]!)).status?.state !== TaskState.INPUT_REQUIRED) ledger.waiting.splice(i, 1);
        }
      }
      expect(restartProblems, context).toEqual([]);

      const run: LoadRun = { cycle, rnd, ledger, cancelable: [], killing: false };
      const clients = await Promise.all(Array.from({ length: LOOPS }, (_, i) => hubClient(server.url, LOOP_BINDINGS[i % LOOP_BINDINGS.length]!, { timeoutMs: 0 })));
      const loops = clients.map((c, i) => loop(run, c, i));
      await sleep(rnd.int(100, 600));
      run.killing = true;
      server.signal("SIGKILL");
      expect((await server.waitExit(10_000)).signal).toBe("SIGKILL");
      await within(20_000, Promise.all(loops), `the load loops of cycle ${cycle} did not end after the kill`);
      for (const c of [check, ...clients]) c.close();
      await server.kill();
      // Recovery warns about the tasks it failed; nothing may have gone wrong inside the server.
      ledger.errors.push(...server.stderr().split("\n").filter((l) => l.includes('"level":"error"')).map((l) => `cycle ${cycle} server: ${l}`));
      expect(ledger.errors, context).toEqual([]);
      // The file as the crash left it, before any recovery.
      auditDisk(dataDir, `after crash ${cycle + 1}, before restart (${context})`);
      // This cycle's acknowledgements (new tasks, and older ones it followed up or canceled) are checked after the restart.
      previous = [...ledger.acks].filter(([, a]) => a.cycle === cycle).map(([id]) => id);
    }

    // The last restart: everything ever acknowledged, every task, every streamed event.
    const last = await spawnServer(dataDir);
    const check = await hubClient(last.url, "grpc", { timeoutMs: 0 });
    const finalTasks = new Map<string, Task>();
    const final = await checkAcks(check, ledger, ledger.acks.keys(), finalTasks);
    const all = await checkAllTasks(check);
    check.close();
    last.signal("SIGTERM");
    expect(await last.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect([...final.problems, ...all.problems], context).toEqual([]);

    const disk = auditDisk(dataDir, `after the last restart (${context})`);
    const streamProblems = readHubDb(dataDir, (db) => {
      const problems: string[] = [];
      const states = db.states();
      const inFlight = [...states].filter(([, s]) => s === TaskState.SUBMITTED || s === TaskState.WORKING);
      if (inFlight.length > 0) problems.push(`${inFlight.length} tasks in flight on disk after recovery: ${inFlight.slice(0, 5).map(([id]) => id)}`);
      if (states.size !== all.tasks) problems.push(`ListTasks listed ${all.tasks} tasks, the database holds ${states.size}`);
      // The log is the whole story: folded to its end, it is the task as the server reads it back.
      for (const [id, task] of finalTasks) problems.push(...foldProblems(db.events(id), task, `task ${id}`));
      // Every event a stream delivered, even one cut by the crash, is in the log at its place.
      for (const s of ledger.streams) {
        const log = db.events(s.taskId);
        s.seen.forEach((e, i) => {
          if (!log[i] || (e.seq !== undefined && e.seq !== log[i]!.seq) || !equals(StreamResponseSchema, e.event, log[i]!.event)) problems.push(`stream of ${s.taskId} (cycle ${s.cycle}) event ${i} is not the logged seq ${i + 1}`);
        });
      }
      return problems;
    });
    expect(streamProblems, context).toEqual([]);

    const seconds = (Date.now() - started) / 1000;
    const byState = [...all.byState].map(([s, n]) => `${TaskState[s]} ${n}`).join(", ");
    console.info(
      `crash-load: ${CYCLES} kills in ${seconds.toFixed(1)} s (seed ${SEED}); ${ledger.acks.size} tasks acknowledged, ` +
        `${checkedAfterRestart} checks after each restart + ${final.checked} at the end (each also against its folded log); ${ledger.streams.length} streams checked against the log; ` +
        `${all.tasks} tasks stored (${byState}); ${disk.events} events; ops: ${[...ledger.ops].map(([k, v]) => `${k} ${v}`).join(", ")}`,
    );
  }, 240_000);
});
