import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TaskState, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { ackProblem } from "../helpers/acknowledged.js";
import { LOAD_BINDINGS, refusedAs, type Binding, type SeenEvent } from "../helpers/hub-clients.js";
import { isSettling, type LoggedEvent } from "../helpers/event-log.js";
import { IN_FLIGHT, openFleetDb, type FleetDb } from "../helpers/fleet-database.js";
import { startHubFleet, type HubFleet } from "../helpers/hub-fleet.js";
import { post, rpc } from "../helpers/jsonrpc-requests.js";
import { textOf } from "../helpers/message-text.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { seededRandom } from "../helpers/seeded-random.js";
import { sleep, within } from "../helpers/server-process.js";
import { startReceiver } from "../helpers/webhook-receiver.js";
import { on, type Reader, read, until, stateOf, runsInFlight, KILLS, SEED, type Load, startLoops, stopLoad, loadStreamProblems, pushProblems, describeRows, openReaders, streamProblems, secs, taskAt } from "../helpers/fleet-load.js";

/*
 * Three hubs as processes on one PostgreSQL database, driven by real
 * clients over every binding: what one replica commits, readers on every
 * replica see; a cancel on one replica stops the run on another; a replica
 * killed or stopped loses nothing that was acknowledged, and its tasks in
 * flight are failed by the others once its lease is gone.
 */

noticePostgresSkip("postgres/fleet.test.ts");

/** Short, so that a dead replica's tasks fail within a test's patience; renewed every third of it. */
const LEASE_MS = 1_500;
/** The stream bindings, each a different path through the relay: SSE under JSON-RPC and REST, HTTP/2 frames under gRPC. */
const STREAMING: readonly Binding[] = ["jsonrpc", "rest", "grpc"];
const STOPPED = /the server that ran this task stopped/i;



/** Chunks of the long streams: enough that subscribers on other replicas join before the last. */
const CHUNKS = 4_000;
/** Subscriptions sent as their task ends. */
const RACES = 60;


describe.skipIf(!hasPostgres)("a fleet of three hubs on one PostgreSQL", () => {
  const cluster = clusterForTests();
  /** One fleet for the file (starting three hubs is the slow part); a test that stops a replica starts it again. */
  let fleet: HubFleet;
  let db: FleetDb;
  let fleetStartMs = 0;
  beforeAll(async () => {
    const t0 = Date.now();
    fleet = await startHubFleet(cluster(), { replicas: 3, leaseMs: LEASE_MS, config: { push: { allowCidrs: ["127.0.0.1/32"], retry: { baseMs: 50, capMs: 200, attempts: 20 } } } });
    fleetStartMs = Date.now() - t0;
    db = await openFleetDb(fleet.dbUrl);
  }, 90_000);
  /** Error lines the replicas wrote before the running test: each test answers for its own. */
  let errorsBefore = 0;
  beforeEach(() => {
    errorsBefore = fleet?.errorLines().length ?? 0;
  });
  afterEach(() => {
    // A replica that died by itself fails the test that was running, with its last words.
    expect(fleet?.crashes() ?? []).toEqual([]);
  });
  const newErrors = (): string[] => fleet.errorLines().slice(errorsBefore);
  afterAll(async () => {
    await db?.close();
    await fleet?.close();
  });

  it("streams across replicas: senders and subscribers over JSON-RPC SSE, REST SSE and gRPC on every replica see exactly their task's log", async () => {
    const started = Date.now();
    const readers: { role: "sender" | "subscriber"; taskId: string; r: Reader }[] = [];
    const others = (o: number) => [0, 1, 2].filter((r) => r !== o);
    // A slow task per replica, subscribed from the other two over every binding before its first event after the snapshot.
    const slow = await Promise.all([0, 1, 2].map(async (o) => taskOf(await on(fleet, o, STREAMING[o]!).send(textRequest("slow 1500", { configuration: { returnImmediately: true } })))));
    for (const [o, t] of slow.entries()) {
      for (const r of others(o)) for (const b of STREAMING) readers.push({ role: "subscriber", taskId: t.id, r: read(`subscriber on replica ${r} over ${b} to a slow task of replica ${o}`, on(fleet, r, b).subscribe(t.id)) });
    }
    // A long chunked stream per replica: subscribers on the others join while its artifact grows.
    for (let o = 0; o < 3; o++) {
      const sender = read(`sender on replica ${o} over ${STREAMING[o]}`, on(fleet, o, STREAMING[o]!).stream(textRequest(`stream ${CHUNKS}`)));
      await until(() => sender.seen.length > 0 || sender.seen.length < 0, 20_000, `${sender.who} got no first event`);
      const first = sender.seen[0]!.event.payload;
      if (first.case !== "task") throw new Error(`${sender.who} began with ${first.case}`);
      readers.push({ role: "sender", taskId: first.value.id, r: sender });
      for (const r of others(o)) for (const b of STREAMING) readers.push({ role: "subscriber", taskId: first.value.id, r: read(`subscriber on replica ${r} over ${b} to the stream of replica ${o}`, on(fleet, r, b).subscribe(first.value.id)) });
    }
    await within(60_000, Promise.all(readers.map((x) => x.r.ended)), () => `streams still open: ${openReaders(readers.map((x) => x.r))}\n${[0, 1, 2].map((i) => `replica ${i}:\n${fleet.at(i).stderr().split("\n").filter((l) => !l.includes('"level":"info"')).slice(-15).join("\n")}`).join("\n")}`);

    // Subscriptions racing their task's end: the task may settle between the subscriber's first look and its snapshot.
    for (let i = 0; i < RACES; i++) {
      const o = i % 3;
      const t = taskOf(await on(fleet, o, STREAMING[i % 3]!).send(textRequest(`slow ${20 + ((i * 37) % 160)}`, { configuration: { returnImmediately: true } })));
      for (const r of others(o)) readers.push({ role: "subscriber", taskId: t.id, r: read(`subscriber on replica ${r} over ${STREAMING[(i + r) % 3]} racing the end of a task of replica ${o}`, on(fleet, r, STREAMING[(i + r) % 3]!).subscribe(t.id)) });
    }
    await within(20_000, Promise.all(readers.map((x) => x.r.ended)), () => `streams still open: ${openReaders(readers.map((x) => x.r))}`);

    const problems: string[] = [];
    let events = 0;
    let midArtifact = 0;
    let late = 0;
    /** Subscriptions whose task ended between their first look and their snapshot: the snapshot is the whole answer. */
    let endedAtSnapshot = 0;
    for (const { role, taskId, r } of readers) {
      const error = await r.ended;
      // §3.1.6: a task that ended before the subscription arrived has nothing to stream; counted, not a failure.
      if (refusedAs(error, "UnsupportedOperation") && role === "subscriber" && r.seen.length === 0) {
        late++;
        continue;
      }
      if (error) problems.push(`${r.who}: ${String(error)}`);
      problems.push(...streamProblems(role, r.seen, await db.events(taskId), r.who));
      events += r.seen.length;
      if (r.seen.length === 1 && isSettling({ ...r.seen[0]!.event, payload: { case: "statusUpdate", value: { status: taskAt(r.seen[0]!).status } } } as never)) endedAtSnapshot++;
      const head = r.seen[0]?.event.payload;
      if (role === "subscriber" && head?.case === "task" && head.value.artifacts.length > 0 && r.seen.some((e) => e.event.payload.case === "artifactUpdate")) midArtifact++;
    }
    expect(problems.slice(0, 20), `${problems.length} problems`).toEqual([]);
    // The long streams really were joined mid-way, or the test proved little.
    expect(midArtifact, `${late} subscriptions came after their task ended`).toBeGreaterThanOrEqual(6);
    console.info(
      `postgres-fleet streams: ${readers.length} streams (${readers.filter((x) => x.role === "sender").length} senders, ${readers.length - readers.filter((x) => x.role === "sender").length - late} subscribers on other replicas, ${midArtifact} of them joining mid-artifact, ${endedAtSnapshot} given a terminal snapshot, ${late} after their task ended) over ${STREAMING.join(", ")}; ` +
        `${events} events matched the log; ${secs(Date.now() - started)} s (fleet started in ${secs(fleetStartMs)} s)`,
    );
  }, 90_000);

  it("cancel across replicas: CancelTask on one replica aborts the run on another, answers CANCELED, and every subscriber on every replica gets CANCELED", async () => {
    const started = Date.now();
    const problems: string[] = [];
    const took: number[] = [];
    let subscribers = 0;
    for (let o = 0; o < 3; o++) {
      const c = (o + 1) % 3;
      const binding = STREAMING[o]!;
      const t = taskOf(await on(fleet, o, "grpc").send(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
      const readers = [0, 1, 2].map((r) => read(`subscriber on replica ${r} over ${STREAMING[(r + o) % 3]}`, on(fleet, r, STREAMING[(r + o) % 3]!).subscribe(t.id)));
      subscribers += readers.length;
      await until(() => readers.every((r) => r.seen.length > 0), 10_000, "a subscriber got no snapshot");
      expect(await runsInFlight(fleet, o), `replica ${o} runs the task`).toBe(1);
      const t0 = Date.now();
      const answer = await on(fleet, c, binding).cancel(t.id);
      took.push(Date.now() - t0);
      if (stateOf(answer) !== TaskState.CANCELED) problems.push(`cancel on replica ${c} of a task of replica ${o} answered ${TaskState[stateOf(answer)]}`);
      // The owner's run is gone: the agent's signal fired and its sleep ended (it would hold the run for a minute otherwise).
      await until(async () => (await runsInFlight(fleet, o)) === 0, 5_000, `replica ${o} still runs the canceled task`);
      await within(10_000, Promise.all(readers.map((r) => r.ended)), "a subscriber's stream did not end after the cancel");
      const log = await db.events(t.id);
      if (stateOf(taskAt(log.at(-1)!)) !== TaskState.CANCELED) problems.push(`the log of ${t.id} does not end CANCELED`);
      for (const r of readers) {
        const error = await r.ended;
        if (error) problems.push(`${r.who}: ${String(error)}`);
        problems.push(...streamProblems("subscriber", r.seen, log, r.who));
        if (!r.seen.at(-1) || stateOf(taskAt(r.seen.at(-1)!)) !== TaskState.CANCELED) problems.push(`${r.who} did not end with CANCELED`);
      }
    }
    expect(problems).toEqual([]);
    console.info(`postgres-fleet cancel: 3 cancels across replicas (${STREAMING.join(", ")}), answered CANCELED in ${took.map((ms) => `${ms} ms`).join(", ")}; each run aborted on its owner; ${subscribers} subscribers on all replicas ended CANCELED; ${secs(Date.now() - started)} s`);
  }, 90_000);

  it("a message to a task run by another replica joins that run (§3.4.3): no second run starts, the task stays with its owner", async () => {
    const started = Date.now();
    const t = taskOf(await on(fleet, 0, "grpc").send(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
    await until(async () => (await runsInFlight(fleet, 0)) === 1, 10_000, "replica 0 does not run the task");
    for (const [r, binding] of [[1, "jsonrpc"], [2, "grpc"]] as const) {
      const answer = taskOf(await on(fleet, r, binding).send(textRequest(`more for the run on replica 0, via replica ${r}`, { taskId: t.id, contextId: t.contextId, configuration: { returnImmediately: true } })));
      expect(answer.status?.state, `the follow-up via replica ${r}`).toBe(TaskState.WORKING);
      expect(await runsInFlight(fleet, r), `replica ${r} started a run of its own`).toBe(0);
    }
    expect(await runsInFlight(fleet, 0)).toBe(1);
    const log = await db.events(t.id);
    // Created, WORKING, and nothing else: the follow-ups joined the history without a status of their own.
    expect(log.map((e) => e.event.payload.case)).toEqual(["task", "statusUpdate"]);
    expect(stateOf(await on(fleet, 2, "rest").cancel(t.id))).toBe(TaskState.CANCELED);
    console.info(`postgres-fleet join: 2 follow-ups via replicas 1 and 2 joined the run on replica 0 (no second run, log unchanged); ${secs(Date.now() - started)} s`);
  }, 60_000);

  it("the send ledger and ListTasks totals are the fleet's: a retry with the same Idempotency-Key on another replica gets the first task, and every replica counts every task", async () => {
    const started = Date.now();
    const message = { messageId: "m-ledger", role: "ROLE_USER", parts: [{ text: "hello once" }] };
    const sendOn = async (r: number, key: string) =>
      (await post(fleet.at(r).url, rpc("SendMessage", { message: { ...message, messageId: `${key}-on-${r}` } }), { "a2a-version": "1.0", "idempotency-key": key })).json;
    const first = await sendOn(0, "k-fleet-1");
    const firstId: string = first.result.task.id;
    for (const r of [1, 2]) {
      const again = await sendOn(r, "k-fleet-1");
      expect(again.result?.task?.id, `the retry on replica ${r}`).toBe(firstId);
    }
    const stored = (await db.tasks()).size;
    for (const r of [0, 1, 2]) {
      const page = await on(fleet, r, "grpc").list({});
      expect(page.totalSize, `ListTasks' total on replica ${r}`).toBe(stored);
    }
    console.info(`postgres-fleet ledger: a retry by Idempotency-Key on replicas 1 and 2 answered the task created on replica 0; ListTasks totals equal the ${stored} stored tasks on every replica; ${secs(Date.now() - started)} s`);
  }, 60_000);

  it("graceful stop (SIGTERM) of a replica: its streams end, clients resume on another replica with Last-Event-ID and miss nothing; its lease row goes and its tasks in flight are failed at once", async () => {
    const started = Date.now();
    // Runs on replica 0 streamed by their senders from it, two more without a stream; a run on replica 1 subscribed from replica 0.
    const cut: { role: "sender" | "subscriber"; binding: Binding; r: Reader }[] = STREAMING.map((b) => ({ role: "sender", binding: b, r: read(`sender on replica 0 over ${b}`, on(fleet, 0, b).stream(textRequest("slow 60000"))) }));
    const quiet = await Promise.all([0, 1].map(async () => taskOf(await on(fleet, 0, "connect-h1").send(textRequest("slow 60000", { configuration: { returnImmediately: true } })))));
    const other = taskOf(await on(fleet, 1, "rest").send(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
    for (const b of STREAMING) cut.push({ role: "subscriber", binding: b, r: read(`subscriber on replica 0 over ${b} to a task of replica 1`, on(fleet, 0, b).subscribe(other.id)) });
    await until(() => cut.every((c) => c.r.seen.length >= (c.role === "sender" ? 2 : 1)), 15_000, () => `streams not started: ${openReaders(cut.map((c) => c.r))}`);
    const idOf = (r: Reader): string => (taskAt(r.seen[0]!) as Task).id;
    const ran = [...cut.filter((c) => c.role === "sender").map((c) => idOf(c.r)), ...quiet.map((t) => t.id)];
    expect(await db.liveReplicas()).toHaveLength(3);

    const stopAsked = Date.now();
    await fleet.stop(0, "SIGTERM", 30_000);
    const exited = Date.now();
    // The lease row went with the replica: nobody waits for it to run out.
    const live = await db.liveReplicas();
    const restarted = fleet.start(0);
    await within(5_000, Promise.all(cut.map((c) => c.r.ended)), () => `streams of the stopped replica still open: ${openReaders(cut.map((c) => c.r))}`);
    await until(async () => {
      const rows = await db.tasks();
      return ran.every((id) => rows.get(id)?.state === TaskState.FAILED);
    }, 15_000, "the stopped replica's tasks were not failed");
    const failedAfter = Date.now() - exited;

    // Each client resumes on replica 1 or 2: SSE after the last id it saw, gRPC (no event ids) with a new subscription.
    const resumed = cut.map((c, i) => {
      const r = 1 + (i % 2);
      const last = c.r.seen.at(-1)!.seq;
      return read(`${c.r.who}, resumed on replica ${r}`, on(fleet, r, c.binding).subscribe(idOf(c.r), c.binding === "grpc" ? {} : { lastEventId: String(last) }));
    });
    await sleep(200);
    expect(stateOf(await on(fleet, 2, "grpc").cancel(other.id))).toBe(TaskState.CANCELED);
    await within(10_000, Promise.all(resumed.map((r) => r.ended)), () => `resumed streams still open: ${openReaders(resumed)}`);

    const problems: string[] = [];
    if (live.length !== 2) problems.push(`${live.length} live leases right after the stop, expected 2`);
    // Within a sweep or so, where a lease running out would take up to LEASE_MS more.
    if (failedAfter >= LEASE_MS) problems.push(`the stopped replica's tasks were failed ${failedAfter} ms after its exit: no sooner than its lease would have run out`);
    for (const [i, c] of cut.entries()) {
      const log = await db.events(idOf(c.r));
      const again = resumed[i]!;
      const error = await again.ended;
      // §3.1.6: a task that ended before the new subscription has nothing to stream (its end is checked in the log below).
      const ended = refusedAs(error, "UnsupportedOperation") && c.binding === "grpc";
      if (error && !ended) problems.push(`${again.who}: ${String(error)}`);
      if (c.binding === "grpc") {
        // What the cut stream saw is the log's beginning (or a snapshot of it); the new subscription is checked whole.
        if (c.role === "sender") problems.push(...streamProblems("sender", c.r.seen, log.slice(0, c.r.seen.length), c.r.who));
        if (!ended) problems.push(...streamProblems("subscriber", again.seen, log, again.who));
      } else {
        // Before and after the cut, one stream: exactly the log, nothing missed, nothing twice.
        problems.push(...streamProblems(c.role, [...c.r.seen, ...again.seen], log, `${c.r.who} + its resumption`));
      }
      const end = log.at(-1)!;
      const want = c.role === "sender" ? TaskState.FAILED : TaskState.CANCELED;
      if (stateOf(taskAt(end)) !== want) problems.push(`the log of ${c.r.who}'s task ends ${TaskState[stateOf(taskAt(end))]}, not ${TaskState[want]}`);
      if (want === TaskState.FAILED && end.event.payload.case === "statusUpdate" && !STOPPED.test(textOf(end.event.payload.value.status?.message))) problems.push(`${c.r.who}'s task FAILED without saying its server stopped`);
    }
    expect(problems).toEqual([]);
    await restarted;
    console.info(
      `postgres-fleet graceful stop: SIGTERM to exit ${secs(exited - stopAsked)} s; lease row gone at exit; ${ran.length} tasks in flight failed by another replica ${failedAfter} ms after the exit (lease ${LEASE_MS} ms); ` +
        `${cut.length} streams cut (${cut.map((c) => `${c.role} ${c.binding}`).join(", ")}), resumed on replicas 1 and 2 (SSE with Last-Event-ID, gRPC resubscribed): ${resumed.reduce((n, r) => n + r.seen.length, 0)} events after the cut, none missed or repeated; ${secs(Date.now() - started)} s`,
    );
  }, 120_000);

  it(`mixed load over every binding spread across the replicas, then ${KILLS} SIGKILLs of a random replica at random moments: nothing acknowledged lost, the dead replica's tasks FAILED after its lease, cut streams resumed elsewhere, every push event delivered in order`, async () => {
    const started = Date.now();
    const rnd = seededRandom(SEED);
    const receiver = await startReceiver();
    try {
      const L: Load = { rnd, receiver, acks: new Map(), followUps: new Map(), cancelSent: new Set(), cancelable: [], waiting: [], live: [], streams: [], pushed: new Set(), errors: [], ops: new Map(), killed: new Set(), cycle: 0, stop: false, tolerated: 0, resumed: 0, doing: [] };
      const context = `seed ${SEED}`;

      // Phase 1, nobody dies: every push event exactly once (the outbox claims keep replicas off each other's rows).
      let loops = startLoops(fleet, L);
      await sleep(3_000);
      await stopLoad(fleet, db, L, loops);
      const calmTasks = new Set(L.pushed);
      await until(async () => (await db.outbox()).live === 0, 30_000, "phase 1's push deliveries were not all made");
      const calm = await pushProblems(db, L, calmTasks, true);
      expect(calm.problems.slice(0, 20), context).toEqual([]);
      expect([...L.errors.slice(0, 20), ...newErrors().slice(0, 5)], context).toEqual([]);
      const calmOps = [...L.ops.values()].reduce((a, b) => a + b, 0);

      // Phase 2: the load goes on while a replica is killed and started again, KILLS times.
      L.stop = false;
      loops = startLoops(fleet, L);
      const failMs: number[] = [];
      /** Per kill: how long before its lease ran out the dead replica's tasks were seen FAILED (never more than 0). */
      const failEarlyMs: number[] = [];
      const restartMs: number[] = [];
      let leftInFlight = 0;
      for (let cycle = 1; cycle <= KILLS; cycle++) {
        L.cycle = cycle;
        const v = rnd.int(0, 2);
        const proc = fleet.at(v);
        // A run that only a death can end, so that every kill leaves one at least; its owner names the replica.
        const probe = taskOf(await on(fleet, v, "grpc").send(textRequest("slow 60000", { configuration: { returnImmediately: true } })));
        L.acks.set(probe.id, { cycle, op: "probe", task: probe, proc });
        const replica = (await db.tasks()).get(probe.id)!.owner;
        await sleep(rnd.int(200, 1_200));
        L.killed.add(proc);
        await fleet.stop(v, "SIGKILL");
        const killedAt = Date.now();
        // What was left of its lease, as the database will judge it: renewals run late on a loaded host, so it may be less than two thirds.
        const leaseLeft = (await db.leaseLeftMs(replica!)) ?? 0;
        const restarted = fleet.start(v);
        const left = [...(await db.tasks())].filter(([, r]) => r.owner === replica && IN_FLIGHT.has(r.state)).map(([id]) => id);
        leftInFlight += left.length;
        await until(
          async () => {
            const rows = await db.tasks();
            // FAILED by a sweep; or CANCELED, when a client's cancel reached another replica once the lease had run out.
            return left.every((id) => rows.get(id)!.state === TaskState.FAILED || (rows.get(id)!.state === TaskState.CANCELED && L.cancelSent.has(id)));
          },
          LEASE_MS + 10_000,
          async () => `cycle ${cycle}: the dead replica's tasks were not failed (${context}): ${await describeRows(db, left)}`,
        );
        failMs.push(Date.now() - killedAt);
        failEarlyMs.push(leaseLeft - (Date.now() - killedAt));
        await restarted;
        restartMs.push(Date.now() - killedAt);
      }
      await stopLoad(fleet, db, L, loops);
      expect([...L.errors.slice(0, 20), ...newErrors().slice(0, 5)], context).toEqual([]);
      // Failed after the lease ran out, by the database's clock (the sweep's judge), and soon after.
      expect(Math.max(...failEarlyMs), `${context}: a dead replica's tasks failed before its lease ran out`).toBeLessThanOrEqual(0);
      expect(Math.max(...failMs), `${context}: a dead replica's tasks failed too long after the kill`).toBeLessThanOrEqual(LEASE_MS + 3_000);

      // Every acknowledgement against the task as any replica reads it now.
      const ackProblems: string[] = [];
      for (const [id, a] of L.acks) {
        const now = await on(fleet, rnd.int(0, 2), rnd.pick(LOAD_BINDINGS)).get(id);
        const p = ackProblem(a, now, L, { allowed: L.killed.has(a.proc), why: STOPPED, what: "the server that ran this task stopped" });
        if (p) ackProblems.push(p);
      }
      expect(ackProblems.slice(0, 20), `${context}: ${ackProblems.length} acknowledgements broken`).toEqual([]);
      // Nothing in flight, every log sound, every stream (cut and resumed ones whole) the log.
      const rows = await db.tasks();
      const stuck = [...rows].filter(([, r]) => IN_FLIGHT.has(r.state) || (r.owner !== null && r.state !== TaskState.SUBMITTED && r.state !== TaskState.WORKING));
      expect(stuck.slice(0, 10), context).toEqual([]);
      expect(await db.logProblems(), context).toEqual([]);
      const streamIssues: string[] = [];
      for (const st of L.streams) streamIssues.push(...loadStreamProblems(st, await db.events(st.taskId)));
      expect(streamIssues.slice(0, 20), `${context}: ${streamIssues.length} stream problems`).toEqual([]);

      // Every push event delivered at least once, in order per task, the kills notwithstanding.
      await until(async () => (await db.outbox()).live === 0, 60_000, "push deliveries still owed a minute after the load");
      const all = await pushProblems(db, L, L.pushed, false);
      expect(all.problems.slice(0, 20), context).toEqual([]);
      expect((await db.outbox()).dead, "dead deliveries").toBe(0);
      expect(newErrors().slice(0, 10)).toEqual([]);

      const byState = new Map<string, number>();
      for (const r of rows.values()) byState.set(TaskState[r.state], (byState.get(TaskState[r.state]) ?? 0) + 1);
      const total = [...L.ops.values()].reduce((a, b) => a + b, 0);
      console.info(
        `postgres-fleet load + kills: ${KILLS} SIGKILLs in ${secs(Date.now() - started)} s (${context}); ${total} ops (${calmOps} before the kills; ${[...L.ops].map(([k, v]) => `${k} ${v}`).join(", ")}), ${L.tolerated} cut by a kill; ` +
          `${L.acks.size} acknowledgements intact; ${leftInFlight} tasks left in flight by the dead replicas, FAILED ${Math.min(...failMs)}..${Math.max(...failMs)} ms after the kill (lease ${LEASE_MS} ms), restarted in ${secs(Math.min(...restartMs))}..${secs(Math.max(...restartMs))} s; ` +
          `${L.streams.length} streams matched the log, ${L.resumed} of them cut and resumed on another replica; ${rows.size} tasks stored (${[...byState].map(([k, v]) => `${k} ${v}`).join(", ")}); ` +
          `push: ${calm.events} events to ${calmTasks.size} tasks exactly once before the kills, ${all.events} events to ${L.pushed.size} tasks at least once and in order in all (${all.repeats} repeats after kills)`,
      );
    } finally {
      await receiver.close();
    }
  }, 240_000);

  it("interrupted tasks (input-required) survive a replica's SIGKILL and are continued on any replica, the restarted one included", async () => {
    const started = Date.now();
    // Asked on replica 0 over three bindings: the tasks wait for input, with no run holding them.
    const asked = await Promise.all(STREAMING.map(async (b) => taskOf(await on(fleet, 0, b).send(textRequest("input-required")))));
    for (const t of asked) expect(stateOf(t)).toBe(TaskState.INPUT_REQUIRED);
    const before = await db.tasks();
    expect(asked.map((t) => before.get(t.id)?.owner)).toEqual([null, null, null]);

    await fleet.stop(0, "SIGKILL");
    // A new replica in slot 0 starts meanwhile: a new process is a new owner, the old one's lease runs out all the same.
    const restarted = fleet.start(0);
    // Two leases and more: the dead replica's lease is long gone and the others have swept many times.
    await sleep(LEASE_MS * 2 + 500);
    const rows = await db.tasks();
    expect(rows.size, "tasks stored").toBeGreaterThan(0);
    for (const t of asked) expect(rows.get(t.id)?.state, `task ${t.id} after the kill`).toBe(TaskState.INPUT_REQUIRED);

    // Continued on replica 1 (unary), on replica 2 (streaming, with a subscriber on replica 1), and on replica 0 restarted.
    const first = taskOf(await on(fleet, 1, "grpc").send(textRequest("answer one", { taskId: asked[0]!.id })));
    const watcher = read("subscriber on replica 1", on(fleet, 1, "rest").subscribe(asked[1]!.id));
    await until(() => watcher.seen.length > 0, 10_000, "the subscription on replica 1 got no snapshot");
    const sender = read("streaming follow-up on replica 2", on(fleet, 2, "jsonrpc").stream(textRequest("answer two", { taskId: asked[1]!.id })));
    await within(15_000, Promise.all([sender.ended, watcher.ended]), "the follow-up's streams did not end");
    await restarted;
    const third = taskOf(await on(fleet, 0, "rest").send(textRequest("answer three", { taskId: asked[2]!.id })));

    const problems: string[] = [];
    for (const [t, answer] of [
      [first, "answer one"],
      [await on(fleet, 0, "grpc").get(asked[1]!.id), "answer two"],
      [third, "answer three"],
    ] as const) {
      if (stateOf(t) !== TaskState.COMPLETED) problems.push(`task ${t.id} is ${TaskState[stateOf(t)]} after its follow-up`);
      if (!t.history.some((m) => textOf(m) === answer)) problems.push(`task ${t.id}'s history lacks "${answer}"`);
      if (t.artifacts[0] && textOf(t.artifacts[0]) !== answer) problems.push(`task ${t.id} echoed ${textOf(t.artifacts[0])}`);
    }
    const log = await db.events(asked[1]!.id);
    problems.push(...streamProblems("subscriber", watcher.seen, log, watcher.who));
    // A follow-up's stream begins with the task as the message left it (WORKING again), then the log from there.
    problems.push(...streamProblems("subscriber", sender.seen, log, sender.who));
    if (stateOf(await on(fleet, 2, "grpc").get(asked[1]!.id)) !== TaskState.COMPLETED) problems.push(`${sender.who}: the task did not complete`);
    problems.push(...(await db.logProblems()));
    expect(problems).toEqual([]);
    expect(newErrors()).toEqual([]);
    console.info(`postgres-fleet interrupted: 3 input-required tasks survived a SIGKILL and ${secs(LEASE_MS * 2 + 500)} s of sweeps, continued on replicas 1, 2 (streaming, watched from 1) and the restarted 0; ${secs(Date.now() - started)} s`);
  }, 90_000);
});

