import { TaskState, type StreamResponse, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { cancelNext, TERMINAL, type Ack, type Cancelable, type Told } from "./acknowledged.js";
import { hubClientAt, LOAD_BINDINGS, refusedAs, withSeqs, type Binding, type HubClient, type SeenEvent } from "./hub-clients.js";
import { isSettling, senderStreamProblems, subscriberStreamProblems, type LoggedEvent } from "./event-log.js";
import { type FleetDb } from "./fleet-database.js";
import { type HubFleet } from "./hub-fleet.js";
import { taskOf, textRequest } from "./messages.js";
import { seedFromEnv, type SeededRandom } from "./seeded-random.js";
import { sleep, type ServerProcess } from "./server-process.js";
import { type WebhookReceiver } from "./webhook-receiver.js";

/*
 * The load the fleet test (test/postgres/fleet.test.ts) drives through three
 * hubs while it kills them: loops of sends, streams, subscriptions,
 * cancels and push configs over every binding, what each was told, and
 * the checks of what was told against the database and the event log.
 */

/** A client of replica i over `binding` (no client deadline: the tests bound what they wait for). */
export function on(f: HubFleet, i: number, binding: Binding): HubClient {
  return clientOn(f.at(i), binding);
}

function clientOn(proc: ServerProcess, binding: Binding): HubClient {
  return hubClientAt(proc.url, binding, { timeoutMs: 0 });
}

/** A stream read in the background: what it saw so far, and how it ended. */
export interface Reader {
  readonly who: string;
  readonly seen: SeenEvent[];
  /** Resolves when the stream ends (with the error that cut it, if any). */
  readonly ended: Promise<unknown>;
}

export function read(who: string, events: AsyncIterable<StreamResponse>): Reader {
  const seen: SeenEvent[] = [];
  const ended = (async () => {
    try {
      for await (const e of withSeqs(events)) seen.push(e);
      return undefined;
    } catch (e) {
      return e;
    }
  })();
  return { who, seen, ended };
}

/** Waits until `cond` holds, polling; fails with `what` after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string | (() => string | Promise<string>)): Promise<void> {
  const started = Date.now();
  while (!(await cond())) {
    if (Date.now() - started > ms) throw new Error(typeof what === "string" ? what : await what());
    await sleep(25);
  }
}

export const stateOf = (t: Task): TaskState => t.status?.state ?? TaskState.UNSPECIFIED;

/** The metric a replica exports for the agent runs it holds now. */
export async function runsInFlight(f: HubFleet, i: number): Promise<number> {
  const text = await (await fetch(`${f.at(i).url}metrics`)).text();
  const m = /^a2a_runs_in_flight(?:\{[^}]*\})? (\d+)/m.exec(text);
  if (!m) throw new Error(`replica ${i} exports no a2a_runs_in_flight`);
  return Number(m[1]);
}

/** How many times the load test kills a replica, and the seed its choices come from (to replay a run). */
export const KILLS = Number(process.env.FLEET_KILLS ?? 10);
export const SEED = seedFromEnv("FLEET_SEED", 1717);
/** Concurrent load loops, each picking a replica and a binding per operation. */
export const LOOPS = 6;

/** A stream of the load, with what a resumption on another replica added after its replica died. */
export interface LoadStream {
  readonly role: "sender" | "subscriber";
  readonly binding: Binding;
  readonly taskId: string;
  readonly seen: SeenEvent[];
  /** The resumption's events: after Last-Event-ID (SSE), or a new subscription (gRPC, Connect). */
  resumed?: SeenEvent[];
}

/** What the load did and was told; acknowledgements remember the process that answered. */
export interface Load extends Told {
  readonly rnd: SeededRandom;
  readonly receiver: WebhookReceiver;
  readonly acks: Map<string, Ack & { readonly proc: ServerProcess }>;
  readonly followUps: Map<string, Set<string>>;
  readonly cancelSent: Set<string>;
  readonly cancelable: Cancelable[];
  readonly waiting: string[];
  readonly live: string[];
  readonly streams: LoadStream[];
  /** Tasks sent with a push config. */
  readonly pushed: Set<string>;
  readonly errors: string[];
  readonly ops: Map<string, number>;
  /** Processes killed so far: their runs may have ended FAILED. */
  readonly killed: Set<ServerProcess>;
  /** What each loop is doing now, for a hang's message. */
  readonly doing: string[];
  cycle: number;
  stop: boolean;
  /** Operations a kill cut short. */
  tolerated: number;
  resumed: number;
}

export function startLoops(f: HubFleet, L: Load): Promise<void> {
  return Promise.all(
    Array.from({ length: LOOPS }, async (_, n) => {
      for (let k = 0; !L.stop; k++) {
        const i = L.rnd.pick(f.up());
        const proc = f.at(i);
        try {
          L.doing[n] = `on replica ${i}`;
          await loadStep(f, L, proc, `${n}.${k}`, n);
        } catch (e) {
          // An answer lost with its replica is no error; anything else is.
          if (f.slots[i] !== proc) L.tolerated++;
          else L.errors.push(`cycle ${L.cycle}, loop ${n}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }),
  ).then(() => undefined);
}

/** One operation of the load on replica `proc`, over a random binding. */
export async function loadStep(f: HubFleet, L: Load, proc: ServerProcess, n: string, loop: number): Promise<void> {
  const { rnd } = L;
  const binding = rnd.pick(LOAD_BINDINGS);
  const client = clientOn(proc, binding);
  const count = (op: string): string => {
    L.doing[loop] += `: ${op} over ${binding}`;
    L.ops.set(op, (L.ops.get(op) ?? 0) + 1);
    return op;
  };
  const ack = (op: string, task: Task, mayComplete = false): void => {
    L.acks.set(task.id, { cycle: L.cycle, op, task, mayComplete, proc });
    // Subscriptions go to tasks that end by themselves or by the load's cancels, never to one waiting for input.
    if (stateOf(task) === TaskState.INPUT_REQUIRED) return;
    L.live.push(task.id);
    if (L.live.length > 32) L.live.shift();
  };
  const push = rnd.chance(0.5) ? { url: `${L.receiver.url}?n=${n}` } : undefined;
  const configuration = (extra: { returnImmediately?: boolean } = {}) => (push ? { ...extra, taskPushNotificationConfig: push } : extra);
  const pushedTask = (t: Task): Task => {
    if (push) L.pushed.add(t.id);
    return t;
  };
  const roll = rnd.next();
  if (roll < 0.14) {
    const op = count("send hello");
    ack(op, pushedTask(taskOf(await client.send(textRequest(`hello ${n} ✓`, { configuration: configuration() })))));
  } else if (roll < 0.24) {
    const op = count("send stream 5");
    ack(op, pushedTask(taskOf(await client.send(textRequest("stream 5", { configuration: configuration() })))));
  } else if (roll < 0.38) {
    const long = rnd.chance(0.5);
    const op = count(long ? "send slow 60000" : "send slow short");
    const t = pushedTask(taskOf(await client.send(textRequest(long ? "slow 60000" : `slow ${rnd.int(100, 600)}`, { configuration: configuration({ returnImmediately: true }) }))));
    ack(op, t, !long);
    L.cancelable.push({ id: t.id, mayComplete: !long });
  } else if (roll < 0.5) {
    if (L.cancelable.length === 0) return;
    const op = count("cancel");
    const target = L.cancelable[0]!;
    try {
      // §3.1.5: a task that completed, or failed with its dead replica, is not cancelable.
      await cancelNext(client, L.cancelable, L.cancelSent, () => true, (task, t) => ack(op, task, t.mayComplete));
    } catch (e) {
      // A cancel cut short by a kill of the replica it was sent to may never have reached the task's owner,
      // which runs on: the end of the load cancels it again (§3.3.1: a second cancel answers the same).
      L.cancelable.push(target);
      throw e;
    }
  } else if (roll < 0.7) {
    const text = rnd.chance(0.5) ? "stream 5" : `slow ${rnd.int(200, 1_200)}`;
    count(`stream ${text.split(" ")[0]}`);
    await loadStream(f, L, loop, proc, binding, "sender", () => client.stream(textRequest(text, { configuration: configuration() })), push !== undefined);
  } else if (roll < 0.8) {
    const id = L.live.length > 0 ? rnd.pick(L.live.slice(-12)) : undefined;
    if (!id) return;
    count("subscribe");
    L.doing[loop] += ` to ${id}`;
    await loadStream(f, L, loop, proc, binding, "subscriber", () => client.subscribe(id), false);
  } else if (roll < 0.9) {
    const op = count("send input-required");
    const t = pushedTask(taskOf(await client.send(textRequest("input-required", { configuration: configuration() }))));
    ack(op, t);
    if (stateOf(t) === TaskState.INPUT_REQUIRED) L.waiting.push(t.id);
  } else {
    const id = L.waiting.shift();
    if (!id) return;
    const op = count("follow-up");
    const req = textRequest(`answer ${n}`, { taskId: id });
    let mine = L.followUps.get(id);
    if (!mine) L.followUps.set(id, (mine = new Set()));
    mine.add(req.message!.messageId);
    ack(op, taskOf(await client.send(req)));
  }
}

/**
 * Reads a stream of the load to its end. One its replica's death cut is
 * resumed on a live replica, as a client would: SSE after the last id it
 * saw, gRPC and Connect with a new subscription.
 */
export async function loadStream(f: HubFleet, L: Load, loop: number, proc: ServerProcess, binding: Binding, role: LoadStream["role"], open: () => AsyncIterable<StreamResponse>, pushed: boolean): Promise<void> {
  let st: LoadStream | undefined;
  const seen: SeenEvent[] = [];
  try {
    for await (const e of withSeqs(open())) {
      if (!st && e.event.payload.case === "task") {
        st = { role, binding, taskId: e.event.payload.value.id, seen };
        if (role === "sender") L.doing[loop] += ` (task ${st.taskId})`;
        L.streams.push(st);
        if (pushed) L.pushed.add(st.taskId);
      }
      seen.push(e);
    }
  } catch (e) {
    // §3.1.6: the task ended before the subscription: nothing to stream.
    if (role === "subscriber" && seen.length === 0 && refusedAs(e, "UnsupportedOperation")) return;
    if (f.up().some((i) => f.slots[i] === proc)) throw e;
  }
  if (seen.at(-1) && endsStream(seen.at(-1)!)) return;
  if (f.up().some((i) => f.slots[i] === proc)) throw new Error(`a ${role} stream over ${binding} ended without a final state while its replica lived`);
  if (!st) return;
  L.doing[loop] += `, cut by a kill, resuming on another replica`;
  const sse = binding === "jsonrpc" || binding === "rest";
  const other = f.at(L.rnd.pick(f.up()));
  const resumed: SeenEvent[] = [];
  try {
    for await (const e of withSeqs(clientOn(other, binding).subscribe(st.taskId, sse ? { lastEventId: String(seen.at(-1)!.seq) } : {}))) resumed.push(e);
  } catch (e) {
    if (!sse && refusedAs(e, "UnsupportedOperation")) return; // it ended meanwhile: the log says how
    if (f.up().some((i) => f.slots[i] === other)) throw e;
    return; // that replica died too
  }
  st.resumed = resumed;
  L.resumed++;
}

/** Stops the loops; what they left running is canceled meanwhile, as subscribers wait for it to end. */
export async function stopLoad(f: HubFleet, db: FleetDb, L: Load, loops: Promise<void>): Promise<void> {
  L.stop = true;
  let done = false;
  void loops.then(() => (done = true));
  const started = Date.now();
  while (!done) {
    if (Date.now() - started > 60_000) {
      const ids = [...new Set(L.doing.join(" ").match(/[0-9a-f]{8}-[0-9a-f-]{27}/g) ?? [])];
      throw new Error(`the load loops did not end: ${L.doing.map((d, i) => `loop ${i} ${d}`).join("; ")}; ${await describeRows(db, ids)}`);
    }
    await settleLoad(f, L);
    await sleep(100);
  }
  await settleLoad(f, L);
}

/** Ends what the load left running (cancels, from any replica) and waits until no task is in flight. */
export async function settleLoad(f: HubFleet, L: Load): Promise<void> {
  for (const t of L.cancelable.splice(0)) {
    L.cancelSent.add(t.id);
    const client = clientOn(f.at(L.rnd.int(0, 2)), L.rnd.pick(LOAD_BINDINGS));
    try {
      const a = L.acks.get(t.id);
      if (a) L.acks.set(t.id, { ...a, op: "cancel at the end", task: await client.cancel(t.id), mayComplete: t.mayComplete });
    } catch (e) {
      if (!refusedAs(e, "TaskNotCancelable")) L.errors.push(`cancel at the end of ${t.id}: ${String(e)}`);
    }
  }
}

/** What a stream of the load saw, whole or cut and resumed, against its task's log. */
export function loadStreamProblems(st: LoadStream, log: readonly LoggedEvent[]): string[] {
  const who = `${st.role} over ${st.binding} of ${st.taskId}`;
  if (!st.resumed) {
    // Whole, or cut with nothing to resume: a prefix of what it should have been.
    if (endsStream(st.seen.at(-1)!)) return streamProblems(st.role, st.seen, log, who);
    return st.role === "sender" ? streamProblems("sender", st.seen, log.slice(0, st.seen.length), `${who} (cut)`) : [];
  }
  if (st.binding === "jsonrpc" || st.binding === "rest") return streamProblems(st.role, [...st.seen, ...st.resumed], log, `${who} + its resumption`);
  return streamProblems("subscriber", st.resumed, log, `${who}'s new subscription`);
}

/**
 * Push deliveries against the logs: every event after the Task (and the
 * final Task of a terminal one) arrived, in seq order per task; with
 * `exactlyOnce`, none twice.
 */
export async function pushProblems(db: FleetDb, L: Load, tasks: ReadonlySet<string>, exactlyOnce: boolean): Promise<{ problems: string[]; events: number; repeats: number }> {
  const problems: string[] = [];
  let events = 0;
  let repeats = 0;
  const byTask = new Map<string, { kind: string; seq: number }[]>();
  for (const a of L.receiver.accepted) {
    if (!tasks.has(a.taskId)) continue;
    const list = byTask.get(a.taskId) ?? [];
    list.push(a);
    byTask.set(a.taskId, list);
  }
  for (const id of tasks) {
    const log = await db.events(id);
    const last = log.at(-1)!;
    const expected = log.slice(1).map((e) => `${e.event.payload.case}:${e.seq}`);
    if (TERMINAL.has(stateOf(taskAt(last)))) expected.push(`task:${last.seq}`);
    const got = byTask.get(id) ?? [];
    const order = got.map((g) => g.seq + (g.kind === "task" ? 0.5 : 0));
    if (order.some((x, i) => i > 0 && x < order[i - 1]!)) problems.push(`task ${id}: deliveries out of order: ${got.map((g) => `${g.kind}:${g.seq}`).join(" ")}`);
    const distinct = [...new Set(got.map((g) => `${g.kind}:${g.seq}`))];
    repeats += got.length - distinct.length;
    if (exactlyOnce && distinct.length !== got.length) problems.push(`task ${id}: delivered twice: ${got.map((g) => `${g.kind}:${g.seq}`).join(" ")}`);
    if (distinct.join(" ") !== expected.join(" ")) problems.push(`task ${id}: delivered ${distinct.join(" ")}, the log has ${expected.join(" ")}`);
    events += distinct.length;
  }
  return { problems, events, repeats };
}

/** Whether a stream ends with this event: a settling one, or a terminal snapshot (the task ended as the subscription began). */
export function endsStream(e: SeenEvent): boolean {
  return isSettling(e.event) || (e.event.payload.case === "task" && TERMINAL.has(stateOf(e.event.payload.value)));
}

/** Tasks as the database holds them, for a failure's message. */
export async function describeRows(db: FleetDb, ids: readonly string[]): Promise<string> {
  const rows = await db.tasks();
  return ids.map((id) => `${id} ${TaskState[rows.get(id)?.state ?? 0]} owner ${rows.get(id)?.owner ?? "none"}`).join("; ") + `; live replicas ${(await db.liveReplicas()).join(", ")}`;
}

/** The readers whose stream has not ended on a settling event, with what they saw last. */
export function openReaders(readers: readonly Reader[]): string {
  return readers
    .filter((r) => !r.seen.at(-1) || !isSettling(r.seen.at(-1)!.event))
    .map((r) => `${r.who} (${r.seen.length} events, last ${r.seen.at(-1) ? describeEvent(r.seen.at(-1)!) : "none"})`)
    .join("; ");
}

export function describeEvent(e: SeenEvent): string {
  const p = e.event.payload;
  return `${p.case}${p.case === "task" || p.case === "statusUpdate" ? ` ${TaskState[p.value.status?.state ?? 0]}` : ""}${e.seq === undefined ? "" : ` seq ${e.seq}`}`;
}

/** What a reader saw, checked against the task's log in the database. */
export function streamProblems(role: "sender" | "subscriber", seen: readonly SeenEvent[], log: readonly LoggedEvent[], who: string): string[] {
  return (role === "sender" ? senderStreamProblems(seen, log) : subscriberStreamProblems(seen, log)).map((p) => `${who}: ${p}`);
}

export const secs = (ms: number): string => (ms / 1000).toFixed(2);

/** The state an event leaves its task in, as a Task with that status (a Task snapshot is itself). */
export function taskAt(e: SeenEvent | LoggedEvent): Task {
  const p = e.event.payload;
  if (p.case === "task") return p.value;
  if (p.case === "statusUpdate") return { status: p.value.status } as Task;
  return { status: undefined } as Task;
}
