import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Role, TaskSchema, TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { PostgresTaskStore, SqliteTaskStore, type StoreScope, type TaskStore, type TaskView } from "../../../src/store/index.js";
import { clusterForTests, hasPostgres, noticePostgresSkip } from "../../helpers/postgres-cluster.js";
import { artifactsOf, failedUnit, message, scope, T0, texts, unit, useStoreDatabase, writer } from "../../helpers/store-writes.js";
import { until } from "../../helpers/until.js";

/**
 * One contract, two stores: every TaskStore operation is checked against
 * SQLite and PostgreSQL with the same expectations, so the two cannot
 * drift. Reads are always awaited (SQLite answers at once, PostgreSQL with
 * a promise); units of work are opened, written and committed as core does.
 */

noticePostgresSkip("store-contract.test.ts");

/** Opens stores on one fresh database; `reopen` is a restart on the same data. */
interface StoreHarness {
  open(options?: { maxHistoryMessages?: number }): Promise<TaskStore>;
}

const other: StoreScope = { tenant: "u", agentId: "echo" };

function payloadKind(d: { payload: { payload: { case?: string } } }): string | undefined {
  return d.payload.payload.case;
}

function storeContract(name: string, harness: () => StoreHarness) {
  describe(`TaskStore contract: ${name}`, () => {
    const opened: TaskStore[] = [];
    async function open(options?: { maxHistoryMessages?: number }): Promise<TaskStore> {
      const store = await harness().open(options);
      opened.push(store);
      return store;
    }
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });

    it("creates a task (seq 1) and reads it back: head, task, snapshot; an unknown task or another tenant's is undefined", async () => {
      const store = await open();
      const w = writer(store);
      let seq = 0;
      await unit(store, () => {
        seq = w.create("a", { metadata: { origin: "contract", n: 2 } });
      });
      expect(seq).toBe(1);
      expect(await store.getHead(scope, "a")).toEqual({ id: "a", contextId: "ctx", state: TaskState.SUBMITTED, lastSeq: 1 });
      const task = await store.getTask(scope, "a");
      expect(task?.status?.state).toBe(TaskState.SUBMITTED);
      expect(task?.metadata).toEqual({ origin: "contract", n: 2 });
      expect(texts(task?.history)).toEqual(["hello"]);
      expect(task?.artifacts).toEqual([]);
      const snap = await store.snapshot(scope, "a");
      expect(snap?.seq).toBe(1);
      expect(snap?.task).toEqual(task);
      expect(await store.getHead(scope, "nope")).toBeUndefined();
      expect(await store.getTask(other, "a")).toBeUndefined();
      expect(await store.snapshot(other, "a")).toBeUndefined();
      expect(await store.eventsAfter(other, "a", 0)).toEqual([]);
    });

    it("logs every status and artifact change in order; eventsAfter pages by seq; a status message joins the history", async () => {
      const store = await open();
      const w = writer(store);
      const seqs: number[] = [];
      await unit(store, () => {
        seqs.push(w.create("a"));
        seqs.push(w.status("a", TaskState.WORKING));
        seqs.push(w.artifact("a", "out", ["one"]));
        w.history("a", "more");
        seqs.push(w.artifact("a", "out", ["two"], { append: true, lastChunk: true }));
        seqs.push(w.status("a", TaskState.COMPLETED, { text: "done" }));
      });
      expect(seqs).toEqual([1, 2, 3, 4, 5]);
      const all = await store.eventsAfter(scope, "a", 0);
      expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(all.map((e) => e.event.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
      expect((await store.eventsAfter(scope, "a", 2, 2)).map((e) => e.seq)).toEqual([3, 4]);
      expect((await store.eventsAfter(scope, "a", 4, 10)).map((e) => e.seq)).toEqual([5]);
      expect(await store.eventsAfter(scope, "a", 5)).toEqual([]);
      const snap = await store.snapshot(scope, "a");
      expect(snap?.seq).toBe(5);
      expect(snap?.task.status?.state).toBe(TaskState.COMPLETED);
      expect(texts(snap?.task.history)).toEqual(["hello", "more", "done"]);
      expect(artifactsOf(snap?.task)).toEqual([["out", "one", "two"]]);
      // A later unit continues the log.
      let next = 0;
      await unit(store, () => {
        next = w.status("a", TaskState.COMPLETED);
      });
      expect(next).toBe(6);
      expect((await store.getHead(scope, "a"))?.lastSeq).toBe(6);
    });

    it("keeps at most maxHistoryMessages per task, and answers historyLength views (all, none, the n most recent)", async () => {
      const store = await open({ maxHistoryMessages: 3 });
      const w = writer(store);
      await unit(store, () => {
        w.create("h", { history: [message("h", "m0"), message("h", "m1")] });
        w.history("h", "m2");
      });
      await unit(store, () => {
        w.history("h", "m3");
        w.status("h", TaskState.INPUT_REQUIRED, { text: "m4" });
      });
      expect(texts((await store.getTask(scope, "h"))?.history)).toEqual(["m2", "m3", "m4"]);
      expect(texts((await store.getTask(scope, "h", { historyLength: 2 }))?.history)).toEqual(["m3", "m4"]);
      expect(texts((await store.getTask(scope, "h", { historyLength: 10 }))?.history)).toEqual(["m2", "m3", "m4"]);
      expect((await store.getTask(scope, "h", { historyLength: 0 }))?.history).toEqual([]);
      expect(texts((await store.snapshot(scope, "h", { historyLength: 1 }))?.task.history)).toEqual(["m4"]);
      // A task created with more messages than the bound keeps the newest.
      await unit(store, () => {
        w.create("big", { history: ["b0", "b1", "b2", "b3", "b4"].map((t) => message("big", t)) });
      });
      expect(texts((await store.getTask(scope, "big"))?.history)).toEqual(["b2", "b3", "b4"]);
    });

    it("answers a task's wire form in every view, the bytes of the Task it reads, right after the unit that created and ended it and again later", async () => {
      const store = await open({ maxHistoryMessages: 3 });
      const w = writer(store);
      const views: TaskView[] = [{}, { historyLength: 0 }, { historyLength: 2 }, { historyLength: 10 }, { includeArtifacts: false }];
      const echo = (id: string) => {
        w.create(id, { history: [message(id, "m0"), message(id, "m1")], metadata: { n: 1 } });
        w.status(id, TaskState.WORKING, { text: "m2" });
        w.artifact(id, "out", ["one"]);
        w.artifact(id, "log", ["x"]);
        w.artifact(id, "out", ["two"], { append: true, lastChunk: true });
        w.artifact(id, "log", ["y"], { lastChunk: true });
        w.status(id, TaskState.COMPLETED, { text: "m3" });
      };
      await unit(store, () => views.forEach((_, i) => echo(`w${i}`)));
      // One whose life spans units: the last unit does not hold all of it.
      await unit(store, () => {
        w.create("late");
        w.status("late", TaskState.WORKING);
      });
      await unit(store, () => {
        w.artifact("late", "out", ["z"], { lastChunk: true });
        w.status("late", TaskState.COMPLETED, { text: "bye" });
      });
      const reads = [...views.map((view, i) => [`w${i}`, view] as const), ["late", {}] as const];
      for (const [id, view] of reads) {
        for (let again = 0; again < 2; again++) {
          const wire = await store.getTaskWire!(scope, id, view);
          const task = await store.getTask(scope, id, view);
          expect(Buffer.from(wire!), `${id} ${JSON.stringify(view)}`).toEqual(Buffer.from(toBinary(TaskSchema, task!)));
        }
      }
      const whole = fromBinary(TaskSchema, (await store.getTaskWire!(scope, "w0"))!);
      expect(whole.status?.state).toBe(TaskState.COMPLETED);
      expect(whole.metadata).toEqual({ n: 1 });
      expect(texts(whole.history)).toEqual(["m1", "m2", "m3"]);
      expect(artifactsOf(whole)).toEqual([
        ["out", "one", "two"],
        ["log", "y"],
      ]);
    });

    it("applies artifact changes: new, appended, replaced; order of first appearance; sealed by lastChunk; left out on request", async () => {
      const store = await open();
      const w = writer(store);
      await unit(store, () => {
        w.create("x");
        w.artifact("x", "zeta", ["z1"]);
        w.artifact("x", "alpha", ["a1"], { lastChunk: true });
      });
      expect(store.artifactSealed(scope, "x", "alpha")).toBe(true);
      expect(store.artifactSealed(scope, "x", "zeta")).toBe(false);
      expect(store.artifactSealed(scope, "x", "none")).toBeUndefined();
      await unit(store, () => {
        w.artifact("x", "zeta", ["z2", "z3"], { append: true, lastChunk: true });
        // §4.2.2: append false replaces the artifact, unsealed again.
        w.artifact("x", "alpha", ["a-new"]);
        w.artifact("x", "mid", ["m1"], { append: true });
      });
      // Answered while the unit is uncommitted too: a run asks between its writes.
      store.beginBatch();
      w.artifact("x", "mid", ["m2"], { append: true, lastChunk: true });
      expect(store.artifactSealed(scope, "x", "mid")).toBe(true);
      await store.commitBatch();
      expect(store.artifactSealed(scope, "x", "zeta")).toBe(true);
      expect(store.artifactSealed(scope, "x", "alpha")).toBe(false);
      const task = await store.getTask(scope, "x");
      expect(artifactsOf(task)).toEqual([
        ["zeta", "z1", "z2", "z3"],
        ["alpha", "a-new"],
        ["mid", "m1", "m2"],
      ]);
      expect(task?.artifacts[0]?.name).toBe("ZETA");
      expect((await store.getTask(scope, "x", { includeArtifacts: false }))?.artifacts).toEqual([]);
      // A fresh store (a restart) reads the same seals from the database.
      const again = await open();
      expect(await again.getHead(scope, "x")).toMatchObject({ lastSeq: 7 });
      expect(again.artifactSealed(scope, "x", "zeta")).toBe(true);
      expect(again.artifactSealed(scope, "x", "alpha")).toBe(false);
      expect(again.artifactSealed(scope, "x", "mid")).toBe(true);
    });

    it("lists tasks newest status first with keyset pages through equal timestamps, filters, and totals", async () => {
      const store = await open();
      const w = writer(store);
      // Seven tasks whose statuses share one instant: only the write order tells them apart.
      const ids = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"];
      await unit(store, () => {
        for (const id of ids) w.create(id, { ms: T0 + 1000, contextId: id === "t2" || id === "t5" ? "ctx-b" : "ctx" });
        w.create("old", { ms: T0 });
        w.create("theirs", { ms: T0 + 5000 });
      });
      await unit(store, () => {
        w.status("t3", TaskState.WORKING, { ms: T0 + 1000 });
        w.status("t1", TaskState.COMPLETED, { ms: T0 + 1000 });
        w.artifact("t1", "out", ["r"]);
      });
      const seen: string[] = [];
      let after;
      let pages = 0;
      do {
        const page = await store.listTasks(scope, { limit: 3, after, historyLength: 0 });
        expect(page.total).toBe(9);
        seen.push(...page.tasks.map((t) => t.id));
        after = page.next;
        pages++;
      } while (after);
      expect(pages).toBe(3);
      // Latest status first; equal instants by write order, newest first; t3 and t1 were written last.
      expect(seen).toEqual(["theirs", "t1", "t3", "t7", "t6", "t5", "t4", "t2", "old"]);
      const full = await store.listTasks(scope, { limit: 1, contextId: "ctx" });
      expect(full.tasks.map((t) => t.id)).toEqual(["theirs"]);
      expect(full.total).toBe(7);
      expect(texts(full.tasks[0]?.history)).toEqual(["hello"]);
      const withArtifacts = await store.listTasks(scope, { limit: 1, state: TaskState.COMPLETED });
      expect(withArtifacts.tasks.map((t) => t.id)).toEqual(["t1"]);
      expect(artifactsOf(withArtifacts.tasks[0])).toEqual([["out", "r"]]);
      expect(withArtifacts.total).toBe(1);
      expect(withArtifacts.next).toBeUndefined();
      expect((await store.listTasks(scope, { limit: 5, state: TaskState.COMPLETED, includeArtifacts: false })).tasks[0]?.artifacts).toEqual([]);
      expect((await store.listTasks(scope, { limit: 10, contextId: "ctx-b" })).tasks.map((t) => t.id)).toEqual(["t5", "t2"]);
      const recent = await store.listTasks(scope, { limit: 10, statusAfterMs: T0 + 1000 });
      expect(recent.tasks.map((t) => t.id)).toEqual(["theirs"]);
      expect(recent.total).toBe(1);
      const submitted = await store.listTasks(scope, { limit: 2, state: TaskState.SUBMITTED });
      expect(submitted.total).toBe(7);
      expect(submitted.next).toBeDefined();
      const empty = await store.listTasks(other, { limit: 10 });
      expect(empty).toEqual({ tasks: [], next: undefined, total: 0 });
    });

    it("keeps the state counters behind ListTasks' totals as tasks move between states", async () => {
      const store = await open();
      const w = writer(store);
      await unit(store, () => {
        for (const id of ["a", "b", "c"]) w.create(id);
      });
      await unit(store, () => {
        w.status("a", TaskState.WORKING);
        w.status("a", TaskState.COMPLETED);
        w.status("b", TaskState.FAILED);
      });
      const total = async (state?: TaskState) => (await store.listTasks(scope, { limit: 1, state })).total;
      expect(await total()).toBe(3);
      expect(await total(TaskState.SUBMITTED)).toBe(1);
      expect(await total(TaskState.WORKING)).toBe(0);
      expect(await total(TaskState.COMPLETED)).toBe(1);
      expect(await total(TaskState.FAILED)).toBe(1);
      // A task created and finished in one unit is counted once, as it ended up.
      await unit(store, () => {
        w.create("d");
        w.status("d", TaskState.WORKING);
        w.status("d", TaskState.COMPLETED);
      });
      expect(await total()).toBe(4);
      expect(await total(TaskState.SUBMITTED)).toBe(1);
      expect(await total(TaskState.COMPLETED)).toBe(2);
    });

    it("keeps a context's ListTasks total as its tasks are created and move, apart from other contexts and scopes", async () => {
      const store = await open();
      const w = writer(store);
      const theirs = writer(store, other);
      await unit(store, () => {
        for (const id of ["a", "b", "c"]) w.create(id, { contextId: "ctx-1" });
        w.create("d", { contextId: "ctx-2" });
        theirs.create("e", { contextId: "ctx-1" });
      });
      const total = async (contextId: string, state?: TaskState, s = scope) => (await store.listTasks(s, { limit: 1, contextId, state })).total;
      expect([await total("ctx-1"), await total("ctx-2"), await total("ctx-3"), await total("ctx-1", undefined, other)]).toEqual([3, 1, 0, 1]);
      await unit(store, () => {
        w.status("a", TaskState.WORKING);
        w.status("b", TaskState.COMPLETED);
        w.create("f", { contextId: "ctx-1" });
      });
      expect(await total("ctx-1")).toBe(4);
      expect([await total("ctx-1", TaskState.SUBMITTED), await total("ctx-1", TaskState.WORKING), await total("ctx-1", TaskState.COMPLETED)]).toEqual([2, 1, 1]);
      // Every page of the listing carries the same total.
      const first = await store.listTasks(scope, { limit: 3, contextId: "ctx-1" });
      const second = await store.listTasks(scope, { limit: 3, contextId: "ctx-1", after: first.next });
      expect([first.total, second.total, first.tasks.length + second.tasks.length]).toEqual([4, 4, 4]);
    });

    it("records sends: the first record of a key wins; messageIds and Idempotency-Keys are separate namespaces", async () => {
      const store = await open();
      const w = writer(store);
      const fp = (n: number) => new Uint8Array([n, n + 1, n + 2]);
      await unit(store, () => {
        w.create("task-1");
        store.rememberSent(scope, { key: { by: "messageId", value: "m1" }, fingerprint: fp(1), taskId: "task-1" });
        store.rememberSent(scope, { key: { by: "idempotencyKey", value: "m1" }, fingerprint: fp(7), reply: message("", "direct", Role.AGENT) });
      });
      await unit(store, () => {
        store.rememberSent(scope, { key: { by: "messageId", value: "m1" }, fingerprint: fp(9), taskId: "task-2" });
      });
      const byId = await store.findSent(scope, { by: "messageId", value: "m1" });
      expect(byId?.taskId).toBe("task-1");
      expect([...(byId?.fingerprint ?? [])]).toEqual([1, 2, 3]);
      expect(byId?.reply).toBeUndefined();
      const byKey = await store.findSent(scope, { by: "idempotencyKey", value: "m1" });
      expect(byKey?.taskId).toBeUndefined();
      expect(texts(byKey?.reply ? [byKey.reply] : [])).toEqual(["direct"]);
      expect([...(byKey?.fingerprint ?? [])]).toEqual([7, 8, 9]);
      expect(await store.findSent(other, { by: "messageId", value: "m1" })).toBeUndefined();
      expect(await store.findSent(scope, { by: "messageId", value: "m2" })).toBeUndefined();
    });

    it("stores push configs: put, replace in place, get, list in creation order, count, delete", async () => {
      const store = await open();
      const w = writer(store);
      await unit(store, () => {
        w.create("p");
        w.pushConfig("p", "one");
      });
      await unit(store, () => w.pushConfig("p", "two", undefined, "0.3"));
      await unit(store, () => w.pushConfig("p", "one", "https://hooks.example.com/replaced"));
      expect((await store.listPushConfigs(scope, "p")).map((c) => [c.id, c.url])).toEqual([
        ["one", "https://hooks.example.com/replaced"],
        ["two", "https://hooks.example.com/two"],
      ]);
      expect(await store.countPushConfigs(scope, "p")).toBe(2);
      expect((await store.getPushConfig(scope, "p", "two"))?.token).toBe("tok-two");
      expect(await store.getPushConfig(scope, "p", "three")).toBeUndefined();
      expect(await store.getPushConfig(other, "p", "two")).toBeUndefined();
      expect(await store.deletePushConfig(scope, "p", "one")).toBe(true);
      expect(await store.deletePushConfig(scope, "p", "one")).toBe(false);
      expect(await store.deletePushConfig(scope, "missing", "one")).toBe(false);
      expect((await store.listPushConfigs(scope, "p")).map((c) => c.id)).toEqual(["two"]);
      expect(await store.countPushConfigs(scope, "p")).toBe(1);
      expect(await store.listPushConfigs(scope, "missing")).toEqual([]);
      expect(await store.countPushConfigs(scope, "missing")).toBe(0);
    });

    it("owes each config every event, in order per (task, config): retried, dead-lettered, the final Task after a terminal state", async () => {
      const store = await open();
      const w = writer(store);
      let told = 0;
      store.onOutbox = () => told++;
      await unit(store, () => {
        w.create("p");
        w.pushConfig("p", "a");
        w.pushConfig("p", "b", undefined, "0.3");
      });
      // The creation event owes nothing: no config hung off the task when it was logged.
      expect(told).toBe(0);
      expect(await store.nextDeliveryAt()).toBeUndefined();
      const before = Date.now();
      await unit(store, () => {
        w.status("p", TaskState.WORKING);
        w.artifact("p", "out", ["x"]);
        w.status("p", TaskState.COMPLETED);
      });
      expect(told).toBe(1);
      const now = Date.now() + 10;
      expect(await store.nextDeliveryAt()).toBeGreaterThanOrEqual(before);
      expect(await store.outboxStats!(now)).toMatchObject({ pending: 8 });
      // One per (task, config): the oldest of each pair.
      let due = await store.dueDeliveries(now, 10);
      expect(due.map((d) => [d.config.id, d.seq, payloadKind(d), d.attempts, d.version])).toEqual([
        ["a", 2, "statusUpdate", 0, "1.0"],
        ["b", 2, "statusUpdate", 0, "0.3"],
      ]);
      expect(due[0]?.scope).toEqual(scope);
      expect(due[0]?.taskId).toBe("p");
      const [a2, b2] = due as [(typeof due)[0], (typeof due)[0]];
      await store.deliverySucceeded(a2.id);
      // b's first delivery fails and is retried later: b's next event waits behind it.
      await store.deliveryFailed(b2.id, now + 60_000, "HTTP 500");
      due = await store.dueDeliveries(now, 10);
      expect(due.map((d) => [d.config.id, d.seq, payloadKind(d)])).toEqual([["a", 3, "artifactUpdate"]]);
      const retried = await store.dueDeliveries(now + 60_000, 10);
      expect(retried.map((d) => [d.config.id, d.seq, d.attempts])).toEqual([
        ["b", 2, 1],
        ["a", 3, 0],
      ]);
      // Given up: the next event of b becomes due.
      await store.deliveryFailed(b2.id, undefined, "HTTP 410 gone");
      due = await store.dueDeliveries(now, 10);
      expect(due.map((d) => [d.config.id, d.seq])).toEqual([
        ["a", 3],
        ["b", 3],
      ]);
      for (const d of due) await store.deliverySucceeded(d.id);
      due = await store.dueDeliveries(now, 10);
      expect(due.map((d) => [d.config.id, d.seq, payloadKind(d)])).toEqual([
        ["a", 4, "statusUpdate"],
        ["b", 4, "statusUpdate"],
      ]);
      for (const d of due) await store.deliverySucceeded(d.id);
      // After the terminal state, the final Task itself, as it stands.
      due = await store.dueDeliveries(now, 10);
      expect(due.map((d) => [d.config.id, d.seq, payloadKind(d)])).toEqual([
        ["a", 4, "task"],
        ["b", 4, "task"],
      ]);
      const final = due[0]!.payload.payload;
      expect(final.case === "task" && final.value.status?.state).toBe(TaskState.COMPLETED);
      expect(final.case === "task" && artifactsOf(final.value)).toEqual([["out", "x"]]);
      await store.deliverySucceeded(due[0]!.id);
      expect((await store.dueDeliveries(now, 10)).map((d) => d.config.id)).toEqual(["b"]);
      const state = await store.pushDeliveryState!(scope, "p");
      expect(state).toEqual([
        { configId: "a", url: "https://hooks.example.com/a", pending: 0, dead: 0, delivered: 4, lastAttemptMs: expect.any(Number) },
        {
          configId: "b",
          url: "https://hooks.example.com/b",
          pending: 1,
          dead: 1,
          delivered: 2,
          lastAttemptMs: expect.any(Number),
          lastError: "HTTP 410 gone",
          nextAttemptMs: expect.any(Number),
        },
      ]);
      expect(await store.outboxStats!(now)).toMatchObject({ pending: 1, oldestDueMs: expect.any(Number) });
      // Deleting a config drops what it was still owed.
      expect(await store.deletePushConfig(scope, "p", "b")).toBe(true);
      expect(await store.dueDeliveries(now, 10)).toEqual([]);
      expect(await store.nextDeliveryAt()).toBeUndefined();
      expect(await store.outboxStats!(now)).toEqual({ pending: 0, oldestDueMs: undefined });
    });

    it("reports the tasks left SUBMITTED or WORKING across every scope (a restart fails them)", async () => {
      const store = await open();
      await unit(store, () => {
        writer(store).create("s");
        writer(store).create("w");
        writer(store).status("w", TaskState.WORKING);
        writer(store).create("done");
        writer(store).status("done", TaskState.COMPLETED);
        writer(store).create("asks");
        writer(store).status("asks", TaskState.INPUT_REQUIRED);
        writer(store, other).create("theirs");
      });
      const restarted = await open();
      const found = await restarted.inFlight();
      expect(found.map((t) => `${t.scope.tenant}/${t.taskId}/${t.contextId}`).sort()).toEqual(["t/s/ctx", "t/w/ctx", "u/theirs/ctx"]);
      // What a restart does with them next: a status written without another read.
      let seq = 0;
      await unit(restarted, () => {
        seq = writer(restarted).status("w", TaskState.FAILED);
      });
      expect(seq).toBe(3);
      expect((await restarted.inFlight()).map((t) => t.taskId).sort()).toEqual(["s", "theirs"]);
    });

    it("makes a unit of several writes one commit: all stored together, and a failed commit stores nothing of it", async () => {
      const store = await open();
      const w = writer(store);
      await unit(store, () => {
        w.create("kept");
      });
      const error = await failedUnit(store, () => {
        w.create("lost");
        store.rememberSent(scope, { key: { by: "messageId", value: "lost" }, fingerprint: new Uint8Array([1]), taskId: "lost" });
        // A task id taken in the scope: the whole unit is refused.
        w.create("kept");
      });
      expect(error).toBeInstanceOf(Error);
      const fresh = await open();
      expect(await fresh.getHead(scope, "lost")).toBeUndefined();
      expect(await fresh.findSent(scope, { by: "messageId", value: "lost" })).toBeUndefined();
      expect(await fresh.getHead(scope, "kept")).toEqual({ id: "kept", contextId: "ctx", state: TaskState.SUBMITTED, lastSeq: 1 });
      expect((await fresh.listTasks(scope, { limit: 10 })).total).toBe(1);
      // The store goes on: the next unit commits.
      await unit(store, () => {
        w.create("after");
      });
      expect((await fresh.getHead(scope, "after"))?.lastSeq).toBe(1);
    });

    it("keeps each task's log apart when a unit's writes interleave several tasks", async () => {
      const store = await open();
      const w = writer(store);
      const seqs: Array<[string, number]> = [];
      await unit(store, () => {
        seqs.push(["a", w.create("a")], ["b", w.create("b")]);
        seqs.push(["a", w.status("a", TaskState.WORKING)], ["b", w.status("b", TaskState.WORKING)]);
        seqs.push(["a", w.artifact("a", "out", ["a1"])]);
        w.history("b", "more for b");
        seqs.push(["b", w.artifact("b", "out", ["b1"], { lastChunk: true })], ["a", w.artifact("a", "out", ["a2"], { append: true })]);
        seqs.push(["b", w.status("b", TaskState.COMPLETED)]);
      });
      expect(seqs).toEqual([
        ["a", 1],
        ["b", 1],
        ["a", 2],
        ["b", 2],
        ["a", 3],
        ["b", 3],
        ["a", 4],
        ["b", 4],
      ]);
      const a = await store.snapshot(scope, "a");
      const b = await store.snapshot(scope, "b");
      expect([a?.seq, a?.task.status?.state, artifactsOf(a?.task)]).toEqual([4, TaskState.WORKING, [["out", "a1", "a2"]]]);
      expect([b?.seq, b?.task.status?.state, artifactsOf(b?.task), texts(b?.task.history)]).toEqual([4, TaskState.COMPLETED, [["out", "b1"]], ["hello", "more for b"]]);
      expect((await store.listTasks(scope, { limit: 10 })).tasks.map((t) => t.id)).toEqual(["b", "a"]);
    });

    it("opens the next unit while a commit is in flight; its seqs follow the previous unit's", async () => {
      const store = await open();
      const w = writer(store);
      store.beginBatch();
      const first = [w.create("f"), w.status("f", TaskState.WORKING)];
      const committing = store.commitBatch();
      store.beginBatch();
      const second = [w.artifact("f", "out", ["x"]), w.status("f", TaskState.COMPLETED)];
      const committingNext = store.commitBatch();
      await Promise.all([committing, committingNext]);
      expect([...first, ...second]).toEqual([1, 2, 3, 4]);
      expect((await store.eventsAfter(scope, "f", 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect((await store.getHead(scope, "f"))?.state).toBe(TaskState.COMPLETED);
    });

    it("stores a write made outside any unit on its own, and a unit opened right after takes it in", async () => {
      const store = await open();
      const w = writer(store);
      w.create("alone");
      await until("the write outside a unit is stored", async () => (await store.getHead(scope, "alone")) !== undefined, 5_000);
      w.create("adopted");
      store.beginBatch();
      w.status("adopted", TaskState.WORKING);
      await store.commitBatch();
      // Committed by the caller's commitBatch, which resolved only once it was durable.
      expect(await (await open()).getHead(scope, "adopted")).toEqual({ id: "adopted", contextId: "ctx", state: TaskState.WORKING, lastSeq: 2 });
      // And the caller hears when such a unit fails, even once the turn it began in is over.
      w.create("other");
      store.beginBatch();
      w.create("alone");
      await new Promise((r) => setImmediate(r));
      const error = await (async () => store.commitBatch())().then(
        () => undefined,
        (e: unknown) => e,
      );
      store.rollbackBatch();
      expect(error).toBeInstanceOf(Error);
    });

    it("finds everything acknowledged after a restart on the same data", async () => {
      const store = await open();
      const w = writer(store);
      await unit(store, () => {
        w.create("r");
        w.status("r", TaskState.WORKING);
        w.artifact("r", "out", ["x"], { lastChunk: true });
        w.status("r", TaskState.COMPLETED, { text: "bye" });
      });
      const before = await store.snapshot(scope, "r");
      await store.close();
      const after = await open();
      expect(await after.snapshot(scope, "r")).toEqual(before);
      expect(await after.ping?.()).toBeUndefined();
    });
  });
}

storeContract("SQLite", () => ({
  async open(options) {
    return new SqliteTaskStore({ filename: sqliteFile, ...options });
  },
}));

let sqliteDir: string;
let sqliteFile: string;
let sqliteN = 0;
beforeAll(() => {
  sqliteDir = mkdtempSync(join(tmpdir(), "a2a-hub-contract-"));
});
afterAll(() => rmSync(sqliteDir, { recursive: true, force: true }));
// Each test gets a file of its own; stores opened within a test share it (a restart).
afterEach(() => {
  sqliteN++;
  sqliteFile = join(sqliteDir, `contract-${sqliteN}.db`);
});
beforeAll(() => {
  sqliteFile = join(sqliteDir, `contract-${sqliteN}.db`);
});

describe.skipIf(!hasPostgres)("PostgreSQL", () => {
  let url = "";
  // Migrated once; every test starts from empty tables.
  useStoreDatabase(clusterForTests(), (u) => (url = u));

  storeContract("PostgreSQL", () => ({
    // One hub's semantics, as SQLite's: in a fleet, deliveries are claimed and only orphans are in flight for a new replica (test/postgres/fleet.test.ts).
    open: (options) => PostgresTaskStore.open({ url, poolSize: 4, fleet: false, ...options }),
  }));
});
