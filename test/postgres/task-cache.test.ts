import { describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { SettledTasks } from "../../src/store/postgres/settled-tasks.js";
import { TaskCache } from "../../src/store/postgres/task-cache.js";
import type { StoreScope } from "../../src/store/index.js";

/**
 * The PostgreSQL store predicts seqs from what it has seen of each task
 * (src/store/postgres/task-cache.ts): bounded, but never at the cost of a
 * task a unit is writing or a run may still write, and never overwritten by
 * a read older than what it holds.
 */

const scope: StoreScope = { tenant: "t", agentId: "echo" };
const done = (lastSeq: number) => ({ contextId: "ctx", lastSeq, state: TaskState.COMPLETED, sealed: new Map<string, boolean>() });

describe("the PostgreSQL store's task cache", () => {
  it("keeps at most its bound, least recently used out first, but never a task held by a unit or still running", () => {
    const cache = new TaskCache(3);
    const held = cache.created(scope, "held", "ctx", TaskState.SUBMITTED);
    held.pins++;
    held.state = TaskState.COMPLETED;
    cache.created(scope, "running", "ctx", TaskState.WORKING);
    cache.seen(scope, "a", done(4));
    cache.seen(scope, "b", done(5));
    cache.seen(scope, "c", done(6));
    expect(cache.size).toBe(3);
    expect(cache.find(scope, "held")).toBe(held);
    expect(cache.find(scope, "running")?.lastSeq).toBe(1);
    expect(cache.find(scope, "a")).toBeUndefined();
    expect(cache.find(scope, "b")).toBeUndefined();
    expect(cache.find(scope, "c")?.lastSeq).toBe(6);
    // Released, the held task may go like any other.
    cache.release([held], false);
    cache.seen(scope, "d", done(7));
    expect(cache.find(scope, "held")).toBeUndefined();
    expect(() => cache.forWrite(scope, "held")).toThrow("task held in scope t/echo was written before it was read in this process");
  });

  it("lets a read refresh an entry only when no unit holds it and it found a later seq than the entry has", () => {
    const cache = new TaskCache();
    const entry = cache.created(scope, "x", "ctx", TaskState.SUBMITTED);
    entry.pins++;
    entry.lastSeq = 3; // predicted by writes of the unit in flight
    cache.seen(scope, "x", done(1));
    expect(cache.find(scope, "x")?.lastSeq).toBe(3);
    cache.release([entry], false);
    // A read sent before that commit returned may show the log before it.
    cache.seen(scope, "x", done(1));
    expect(cache.find(scope, "x")?.lastSeq).toBe(3);
    cache.seen(scope, "x", { contextId: "ctx", lastSeq: 5, state: TaskState.WORKING, sealed: new Map([["out", true]]) });
    expect(cache.find(scope, "x")).toMatchObject({ contextId: "ctx", lastSeq: 5, state: TaskState.WORKING, sealed: new Map([["out", true]]) });
  });

  it("keeps what a later read found when an earlier read of the same task comes back after it, with no commit of this process between", () => {
    const cache = new TaskCache();
    // Read here once, while another replica ran it; never evicted while it may be running.
    cache.seen(scope, "x", { contextId: "ctx", lastSeq: 2, state: TaskState.WORKING, sealed: new Map() });
    // Two reads are out; the other replica's next event commits between their snapshots, and the later read answers first.
    cache.seen(scope, "x", { contextId: "ctx", lastSeq: 3, state: TaskState.INPUT_REQUIRED, sealed: new Map([["out", false]]) });
    cache.seen(scope, "x", { contextId: "ctx", lastSeq: 2, state: TaskState.WORKING, sealed: new Map() });
    // A continuation written here is the log's fourth event, not a third the database would fence.
    expect(cache.forWrite(scope, "x")).toMatchObject({ lastSeq: 3, state: TaskState.INPUT_REQUIRED, sealed: new Map([["out", false]]) });
  });

  it("forgets the tasks of a unit that failed: their state is unknown until read again", () => {
    const cache = new TaskCache();
    const a = cache.created(scope, "a", "ctx", TaskState.SUBMITTED);
    const b = cache.created(scope, "b", "ctx", TaskState.SUBMITTED);
    a.pins++;
    cache.release([a], true);
    expect(cache.find(scope, "a")).toBeUndefined();
    expect(cache.find(scope, "b")).toBe(b);
    cache.seen(scope, "a", done(2));
    expect(cache.forWrite(scope, "a").lastSeq).toBe(2);
  });

  it("answers the head of a task only once it saw it terminal with no unit holding writes to it; a failed unit's task is read again", () => {
    const cache = new TaskCache();
    const entry = cache.created(scope, "t", "ctx-t", TaskState.SUBMITTED);
    entry.pins++;
    expect(cache.terminalHead(scope, "t")).toBeUndefined();
    entry.lastSeq = 4;
    entry.state = TaskState.COMPLETED;
    // Written, not yet committed.
    expect(cache.terminalHead(scope, "t")).toBeUndefined();
    cache.release([entry], false);
    expect(cache.terminalHead(scope, "t")).toEqual({ id: "t", contextId: "ctx-t", state: TaskState.COMPLETED, lastSeq: 4 });

    // Interrupted is settled but not terminal (a later message continues it, on any replica): asked of the database.
    cache.seen(scope, "i", { contextId: "ctx-i", lastSeq: 2, state: TaskState.INPUT_REQUIRED, sealed: new Map() });
    expect(cache.terminalHead(scope, "i")).toBeUndefined();

    const failed = cache.created(scope, "f", "ctx-f", TaskState.SUBMITTED);
    failed.pins++;
    failed.state = TaskState.FAILED;
    cache.release([failed], true);
    expect(cache.terminalHead(scope, "f")).toBeUndefined();
  });
});

describe("the PostgreSQL store's settled tasks", () => {
  const pieces = (bytes: number) => ({ id: "x", contextId: "c", status: new Uint8Array(bytes), artifacts: undefined, history: undefined, metadata: null });

  it("gives each task once, and past its bound in bytes lets the oldest go first; a task larger than the bound is not kept", () => {
    const settled = new SettledTasks(100);
    settled.put("a", pieces(40));
    settled.put("b", pieces(40));
    expect(settled.take("a")?.status.length).toBe(40);
    expect(settled.take("a")).toBeUndefined();
    settled.put("c", pieces(40));
    settled.put("d", pieces(40));
    // b, c, d hold 120 bytes: b, the oldest, went.
    expect(settled.size).toBe(2);
    expect(settled.take("b")).toBeUndefined();
    expect(settled.take("c")).toBeDefined();
    settled.put("huge", pieces(101));
    expect(settled.take("huge")).toBeUndefined();
    expect(settled.take("d")).toBeDefined();
  });
});
