import Database from "better-sqlite3";
import { create, equals, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ArtifactSchema,
  MessageSchema,
  Role,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  PartSchema,
  TaskPushNotificationConfigSchema,
  TaskStatusSchema,
  type Message,
} from "../../../../gen/a2a/v1/a2a_pb.js";
import { SqliteTaskStore, type StoreScope, type TaskPage } from "../../../../src/store/index.js";
import { SETTLED_RECORDS } from "../../../../src/store/sqlite/index.js";

/**
 * The SQLite store holds the task rows it writes and writes each once per
 * transaction (src/store/sqlite/task-records.ts). These tests check what
 * reaches the file, through a second connection, as a restart would find it.
 */

const scope: StoreScope = { tenant: "t", agentId: "echo" };
let dir: string;
let file: string;
let store: SqliteTaskStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-hub-store-"));
  file = join(dir, "a2a-hub.db");
  store = new SqliteTaskStore({ filename: file });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function message(taskId: string, text: string, role = Role.USER): Message {
  return create(MessageSchema, { messageId: `${taskId}-${text}`, role, taskId, contextId: "ctx", parts: [{ content: { case: "text", value: text } }] });
}

function createTask(id: string): number {
  const status = create(TaskStatusSchema, { state: TaskState.SUBMITTED, timestamp: timestampFromMs(Date.now()) });
  const history = [message(id, "hello")];
  const task = create(TaskSchema, { id, contextId: "ctx", status, history });
  return store.createTask(scope, { id, contextId: "ctx", status, history }, create(StreamResponseSchema, { payload: { case: "task", value: task } }));
}

function setStatus(id: string, state: TaskState, text?: string): number {
  const status = create(TaskStatusSchema, { state, timestamp: timestampFromMs(Date.now()), message: text ? message(id, text, Role.AGENT) : undefined });
  return store.setStatus(scope, id, status, create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: id, contextId: "ctx", status } } }));
}

/** Gives a task a push config: its events then owe webhook rows (a statement each). */
function pushTo(id: string): void {
  store.putPushConfig(scope, create(TaskPushNotificationConfigSchema, { id: "hook", taskId: id, url: "https://example.com/hook" }));
}

function addArtifact(id: string, artifactId: string, text: string, append = false): number {
  const artifact = create(ArtifactSchema, { artifactId, parts: [{ content: { case: "text", value: text } }] });
  return store.changeArtifact(scope, id, { artifact, append, lastChunk: false }, create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: id, contextId: "ctx", artifact, append } } }));
}

interface StoredRow {
  state: number;
  last_seq: number;
  history_count: number;
  artifact_count: number;
  events: number;
  history: number;
}

/** What the file holds for a task, read by another connection (committed data only). */
function stored(id: string): StoredRow | undefined {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[string], StoredRow>(
        `SELECT state, last_seq, history_count, artifact_count,
                (SELECT COALESCE(SUM(e.n), 0) FROM events e WHERE e.task_pk = t.pk) AS events,
                (SELECT COUNT(*) FROM history h WHERE h.task_pk = t.pk) AS history
         FROM tasks t WHERE id = ?`,
      )
      .get(id);
  } finally {
    db.close();
  }
}

/** A task's rows of a packed table (events or artifact_parts): where each starts and how many it holds. */
function rowsOf(table: "events" | "artifact_parts", id: string): Array<{ at: number; n: number }> {
  const db = new Database(file, { readonly: true });
  try {
    const at = table === "events" ? "seq" : "idx";
    return db.prepare<[string], { at: number; n: number }>(`SELECT ${at} AS at, n FROM ${table} WHERE task_pk = (SELECT pk FROM tasks WHERE id = ?) ORDER BY ${at}`).all(id);
  } finally {
    db.close();
  }
}

/** A task's artifacts as [id, ...part texts]. */
function partsOf(id: string): Array<Array<string | undefined>> | undefined {
  return store.getTask(scope, id)?.artifacts.map((a) => [a.artifactId, ...a.parts.map((p) => p.content.value as string | undefined)]);
}

function counts(): Record<number, number> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare<[], { state: number; n: number }>(`SELECT state, n FROM task_counts WHERE n > 0`).all();
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  } finally {
    db.close();
  }
}

describe("SQLite store: task rows", () => {
  it("a task created and changed in one batch is stored as it ends up, readable inside the batch and after a reopen", () => {
    store.beginBatch();
    expect(createTask("a")).toBe(1);
    expect(setStatus("a", TaskState.WORKING)).toBe(2);
    expect(addArtifact("a", "out", "one")).toBe(3);
    expect(addArtifact("a", "out", "two", true)).toBe(4);
    store.appendHistory(scope, "a", message("a", "more"));
    expect(setStatus("a", TaskState.COMPLETED, "done")).toBe(5);
    // Reads inside the batch see its writes, ListTasks and recovery included.
    expect(store.getHead(scope, "a")).toEqual({ id: "a", contextId: "ctx", state: TaskState.COMPLETED, lastSeq: 5 });
    const page = store.listTasks(scope, { limit: 10 });
    expect(page.total).toBe(1);
    expect(page.tasks[0]?.status?.state).toBe(TaskState.COMPLETED);
    expect(store.inFlight()).toEqual([]);
    expect(stored("a")).toBeUndefined();
    store.commitBatch();

    expect(stored("a")).toEqual({ state: TaskState.COMPLETED, last_seq: 5, history_count: 3, artifact_count: 1, events: 5, history: 3 });
    // The state counters saw one task, COMPLETED, never a SUBMITTED one left behind.
    expect(counts()).toEqual({ [TaskState.COMPLETED]: 1 });
    const before = store.snapshot(scope, "a");
    expect(before?.seq).toBe(5);
    expect(before?.task.history.map((m) => m.parts[0]?.content.value)).toEqual(["hello", "more", "done"]);
    expect(before?.task.artifacts.map((a) => a.parts.map((p) => p.content.value))).toEqual([["one", "two"]]);

    store.close();
    store = new SqliteTaskStore({ filename: file });
    expect(store.snapshot(scope, "a")).toEqual(before);
    // Counters continue from what was stored.
    expect(setStatus("a", TaskState.COMPLETED)).toBe(6);
  });

  it("a status change of a stored task is one row update, and changes outside a batch are stored at once", () => {
    createTask("b");
    expect(stored("b")).toMatchObject({ state: TaskState.SUBMITTED, last_seq: 1, history_count: 1, events: 1 });
    setStatus("b", TaskState.WORKING);
    expect(stored("b")).toMatchObject({ state: TaskState.WORKING, last_seq: 2, events: 2 });
    store.beginBatch();
    setStatus("b", TaskState.INPUT_REQUIRED, "which one?");
    store.appendHistory(scope, "b", message("b", "this one"));
    setStatus("b", TaskState.WORKING);
    store.commitBatch();
    expect(stored("b")).toEqual({ state: TaskState.WORKING, last_seq: 4, history_count: 3, artifact_count: 0, events: 4, history: 3 });
    expect(counts()).toEqual({ [TaskState.WORKING]: 1 });
  });

  it("the state counters ListTasks' totalSize reads follow every task: summed per batch, after a reopen, not after a rollback", () => {
    const total = (state?: TaskState) => (store.listTasks(scope, { limit: 1, ...(state ? { state } : {}) }) as TaskPage).total;
    store.beginBatch();
    for (let i = 0; i < 40; i++) createTask(`n${i}`);
    for (let i = 0; i < 30; i++) setStatus(`n${i}`, TaskState.WORKING);
    for (let i = 0; i < 10; i++) setStatus(`n${i}`, TaskState.COMPLETED);
    // ListTasks inside the batch writes the rows first, and counts them.
    expect(total(TaskState.WORKING)).toBe(20);
    setStatus("n10", TaskState.FAILED);
    store.commitBatch();
    expect(counts()).toEqual({ [TaskState.SUBMITTED]: 10, [TaskState.WORKING]: 19, [TaskState.COMPLETED]: 10, [TaskState.FAILED]: 1 });

    // A rolled-back batch moves no counter, even one a read inside it had written.
    store.beginBatch();
    createTask("gone");
    setStatus("n11", TaskState.CANCELED);
    expect(total(TaskState.CANCELED)).toBe(1);
    store.rollbackBatch();
    expect(counts()).toEqual({ [TaskState.SUBMITTED]: 10, [TaskState.WORKING]: 19, [TaskState.COMPLETED]: 10, [TaskState.FAILED]: 1 });

    // Tasks read back from their rows move from the state their rows hold.
    store.close();
    store = new SqliteTaskStore({ filename: file });
    setStatus("n35", TaskState.WORKING);
    setStatus("n12", TaskState.COMPLETED);
    setStatus("n0", TaskState.COMPLETED);
    expect(counts()).toEqual({ [TaskState.SUBMITTED]: 9, [TaskState.WORKING]: 19, [TaskState.COMPLETED]: 11, [TaskState.FAILED]: 1 });
    expect(total()).toBe(40);
  });

  it("artifacts read back in the order they first appeared, each with its parts in order", () => {
    createTask("arts");
    addArtifact("arts", "zeta", "z1");
    addArtifact("arts", "alpha", "a1");
    addArtifact("arts", "zeta", "z2", true);
    addArtifact("arts", "mid", "m1");
    addArtifact("arts", "alpha", "a-new");
    addArtifact("arts", "alpha", "a2", true);
    const artifacts = store.getTask(scope, "arts")?.artifacts.map((a) => [a.artifactId, ...a.parts.map((p) => p.content.value)]);
    expect(artifacts).toEqual([
      ["zeta", "z1", "z2"],
      ["alpha", "a-new", "a2"],
      ["mid", "m1"],
    ]);
    expect(stored("arts")).toMatchObject({ artifact_count: 3, last_seq: 7 });
  });

  it("what is stored beside each event (status, history, artifact head and parts) reads back as the messages given, sliced or not", () => {
    const meta = { source: "test", nested: { n: 1, list: [true, null, "x"] } };
    const rich = (id: string, text: string): Message =>
      create(MessageSchema, {
        messageId: `${id}-${text}`,
        role: Role.AGENT,
        taskId: id,
        contextId: "ctx",
        parts: [
          { content: { case: "text", value: text }, mediaType: "text/plain", metadata: meta },
          { content: { case: "raw", value: new Uint8Array([0, 1, 2, 255]) }, filename: "b.bin" },
          { content: { case: "url", value: "https://example.com/f" } },
          { content: { case: "data", value: { kind: { case: "structValue", value: { fields: {} } } } } },
        ],
        metadata: meta,
        extensions: ["https://example.com/ext"],
        referenceTaskIds: ["other"],
      });
    const id = "rich";
    const first = [rich(id, "one"), rich(id, "two")];
    const status = create(TaskStatusSchema, { state: TaskState.SUBMITTED, timestamp: timestampFromMs(1_700_000_000_123) });
    const created = create(StreamResponseSchema, { payload: { case: "task", value: create(TaskSchema, { id, contextId: "ctx", status, history: first, metadata: meta }) } });
    store.createTask(scope, { id, contextId: "ctx", status, history: first, metadata: meta }, created);
    // One status carried by its event (sliced), one whose event carries a copy (encoded on its own).
    const asking = create(TaskStatusSchema, { state: TaskState.INPUT_REQUIRED, message: rich(id, "which?"), timestamp: timestampFromMs(1_700_000_000_456) });
    const asked = create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: id, contextId: "ctx", status: asking, metadata: meta } } });
    store.setStatus(scope, id, asking, asked);
    const working = create(TaskStatusSchema, { state: TaskState.WORKING, message: rich(id, "on it") });
    const copied = create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: id, contextId: "ctx", status: create(TaskStatusSchema, working) } } });
    store.setStatus(scope, id, working, copied);
    const artifact = create(ArtifactSchema, { artifactId: "out", name: "Out", description: "d", parts: rich(id, "p").parts, metadata: meta, extensions: ["e"] });
    const artifactEvent = create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: id, contextId: "ctx", artifact, lastChunk: true, metadata: meta } } });
    store.changeArtifact(scope, id, { artifact, append: false, lastChunk: true }, artifactEvent);
    const more = create(ArtifactSchema, { artifactId: "out", parts: [{ content: { case: "text", value: "tail" } }] });
    store.changeArtifact(scope, id, { artifact: more, append: true, lastChunk: false }, create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: id, contextId: "ctx", artifact: create(ArtifactSchema, more), append: true } } }));

    const expected = create(TaskSchema, {
      id,
      contextId: "ctx",
      status: working,
      history: [...first, asking.message!, working.message!],
      artifacts: [{ ...artifact, parts: [...artifact.parts, ...more.parts] }],
      metadata: meta,
    });
    // Compared as protobuf values: bytes fields read back as Buffers.
    // The wire form is what toBinary makes of the Task, to the byte: field order, each artifact's parts at their place.
    const readsBack = () => equals(TaskSchema, store.getTask(scope, id)!, expected) && Buffer.from(store.getTaskWire(scope, id)!).equals(toBinary(TaskSchema, expected));
    expect(readsBack()).toBe(true);
    const events = store.eventsAfter(scope, id, 0).map((e) => e.event);
    expect(events.slice(0, 4).map((e, i) => equals(StreamResponseSchema, e, [created, asked, copied, artifactEvent][i]!))).toEqual([true, true, true, true]);
    expect(store.artifactSealed(scope, id, "out")).toBe(true);
    store.close();
    store = new SqliteTaskStore({ filename: file });
    expect(readsBack()).toBe(true);
  });

  it("a task this store created reads back from memory to the byte as its rows read after a reopen, whatever the view", () => {
    store.close();
    store = new SqliteTaskStore({ filename: file, maxHistoryMessages: 3 });
    const artifact = (artifactId: string, name: string, ...texts: string[]) =>
      create(ArtifactSchema, { artifactId, name, parts: texts.map((t) => ({ content: { case: "text" as const, value: t } })) });
    const change = (id: string, a: ReturnType<typeof artifact>, append: boolean, lastChunk: boolean) =>
      store.changeArtifact(scope, id, { artifact: a, append, lastChunk }, create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: id, contextId: "ctx", artifact: a, append, lastChunk } } }));
    createTask("m");
    setStatus("m", TaskState.WORKING, "started");
    change("m", artifact("x", "first head", "x1"), false, false);
    // An appended chunk keeps the first head; a replacement (append false) takes the new one and drops the parts.
    change("m", artifact("x", "ignored head", "x2", "x3"), true, true);
    change("m", artifact("y", "y head", "y1"), true, false);
    change("m", artifact("z", "z head", "z1"), false, false);
    change("m", artifact("z", "z again", "z2"), false, true);
    store.beginBatch();
    store.appendHistory(scope, "m", message("m", "more"));
    setStatus("m", TaskState.INPUT_REQUIRED, "which?");
    store.commitBatch();
    // A task whose children pass the bound of what is held is read from its rows.
    createTask("big");
    change("big", artifact("b", "big", "b".repeat(300_000)), false, false);
    setStatus("big", TaskState.COMPLETED, "done");

    const views = [undefined, { historyLength: 0 }, { historyLength: 2 }, { historyLength: 9 }, { includeArtifacts: false }];
    const read = () =>
      ["m", "big"].flatMap((id) => [
        ...views.map((v) => {
          const wire = Buffer.from(store.getTaskWire(scope, id, v)!).toString("base64");
          expect(Buffer.from(toBinary(TaskSchema, store.getTask(scope, id, v)!)).toString("base64")).toBe(wire);
          return wire;
        }),
        String(["x", "y", "z", "none"].map((a) => store.artifactSealed(scope, id, a))),
      ]);
    const hot = read();
    expect(store.getTask(scope, "m")?.history.map((m) => m.parts[0]?.content.value)).toEqual(["started", "more", "which?"]);
    expect(store.getTask(scope, "m")?.artifacts.map((a) => [a.name, ...a.parts.map((p) => p.content.value)])).toEqual([
      ["first head", "x1", "x2", "x3"],
      ["y head", "y1"],
      ["z again", "z2"],
    ]);
    expect(hot[5]).toBe("true,false,true,");
    store.close();
    store = new SqliteTaskStore({ filename: file, maxHistoryMessages: 3 });
    expect(read()).toEqual(hot);
  });

  it("a rolled-back batch is forgotten: its tasks are gone and the stored ones read as stored", () => {
    createTask("kept");
    store.beginBatch();
    createTask("gone");
    setStatus("kept", TaskState.WORKING);
    expect(store.getHead(scope, "gone")?.lastSeq).toBe(1);
    store.rollbackBatch();
    expect(store.getHead(scope, "gone")).toBeUndefined();
    expect(store.getHead(scope, "kept")).toEqual({ id: "kept", contextId: "ctx", state: TaskState.SUBMITTED, lastSeq: 1 });
    // The rowid the forgotten task had goes to the next one, with nothing of the old one under it.
    store.beginBatch();
    createTask("next");
    store.commitBatch();
    expect(stored("next")).toEqual({ state: TaskState.SUBMITTED, last_seq: 1, history_count: 1, artifact_count: 0, events: 1, history: 1 });
    expect(store.getTask(scope, "next")?.artifacts).toEqual([]);
  });

  it("a write that fails halfway inside a batch leaves its task as it was, and the batch keeps the rest", () => {
    createTask("c");
    pushTo("c");
    // Another connection makes the outbox refuse seq 3: the status message is stored, then the webhook row it owes fails.
    const admin = new Database(file);
    admin.exec(`CREATE TRIGGER refuse_seq_3 BEFORE INSERT ON push_outbox WHEN NEW.seq = 3 BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    try {
      store.beginBatch();
      setStatus("c", TaskState.WORKING);
      expect(() => setStatus("c", TaskState.INPUT_REQUIRED, "lost")).toThrow(/refused/);
      expect(store.getHead(scope, "c")).toEqual({ id: "c", contextId: "ctx", state: TaskState.WORKING, lastSeq: 2 });
      expect(store.getTask(scope, "c")?.history).toHaveLength(1);
      store.commitBatch();
      expect(stored("c")).toEqual({ state: TaskState.WORKING, last_seq: 2, history_count: 1, artifact_count: 0, events: 2, history: 1 });
    } finally {
      admin.exec(`DROP TRIGGER refuse_seq_3`);
      admin.close();
    }
    expect(setStatus("c", TaskState.INPUT_REQUIRED, "kept")).toBe(3);
    expect(store.getTask(scope, "c")?.history.map((m) => m.parts[0]?.content.value)).toEqual(["hello", "kept"]);
  });

  it("a one-statement write (a status whose message joins the history, no webhook owed) that fails inside a batch changes nothing, and the batch keeps the rest", () => {
    createTask("d");
    createTask("e");
    const admin = new Database(file);
    admin.exec(`CREATE TRIGGER refuse_d_idx_1 BEFORE INSERT ON history WHEN NEW.idx = 1 AND NEW.task_pk = (SELECT pk FROM tasks WHERE id = 'd') BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    try {
      store.beginBatch();
      setStatus("d", TaskState.WORKING);
      expect(() => setStatus("d", TaskState.COMPLETED, "lost")).toThrow(/refused/);
      setStatus("e", TaskState.WORKING);
      expect(store.getHead(scope, "d")).toEqual({ id: "d", contextId: "ctx", state: TaskState.WORKING, lastSeq: 2 });
      store.commitBatch();
      expect(stored("d")).toEqual({ state: TaskState.WORKING, last_seq: 2, history_count: 1, artifact_count: 0, events: 2, history: 1 });
      expect(stored("e")).toMatchObject({ state: TaskState.WORKING, last_seq: 2, events: 2 });
    } finally {
      admin.exec(`DROP TRIGGER refuse_d_idx_1`);
      admin.close();
    }
    expect(setStatus("d", TaskState.COMPLETED, "kept")).toBe(3);
    expect(stored("d")).toMatchObject({ state: TaskState.COMPLETED, last_seq: 3, events: 3, history: 2 });
  });

  it("a task id taken in its scope fails the batch's commit, and the batch rolls back whole", () => {
    createTask("dup");
    store.beginBatch();
    createTask("other");
    setStatus("dup", TaskState.WORKING);
    createTask("dup");
    expect(() => store.commitBatch()).toThrow(/UNIQUE/);
    store.rollbackBatch();
    expect(store.getHead(scope, "other")).toBeUndefined();
    expect(stored("dup")).toMatchObject({ state: TaskState.SUBMITTED, last_seq: 1, events: 1 });
  });

  it("events owe webhooks only to tasks with a push config, also after a reopen", () => {
    createTask("quiet");
    createTask("pushed");
    pushTo("pushed");
    setStatus("quiet", TaskState.WORKING);
    setStatus("pushed", TaskState.WORKING);
    expect(store.outboxStats(Date.now()).pending).toBe(1);
    store.close();
    store = new SqliteTaskStore({ filename: file });
    setStatus("quiet", TaskState.COMPLETED);
    setStatus("pushed", TaskState.COMPLETED);
    // The terminal event, and the final Task after it.
    expect(store.outboxStats(Date.now()).pending).toBe(3);
    expect(store.dueDeliveries(Date.now(), 10).map((d) => d.taskId)).toEqual(["pushed"]);
  });

  it("appends need no read of the artifact: parts and seals stay right across batches, a rollback, a failed append and a reopen", () => {
    const heads = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare<[], { artifact_id: string; part_count: number; sealed: number }>(`SELECT artifact_id, part_count, sealed FROM artifacts ORDER BY ord`).all();
      } finally {
        db.close();
      }
    };
    createTask("s");
    store.beginBatch();
    addArtifact("s", "out", "1");
    for (let i = 2; i <= 5; i++) addArtifact("s", "out", String(i), true);
    store.commitBatch();
    // The head row holds what the appends made of it (written once, at the end of the batch).
    expect(heads()).toEqual([{ artifact_id: "out", part_count: 5, sealed: 0 }]);
    // A rolled-back batch of appends leaves neither parts nor a moved head, and the next append goes on from the stored ones.
    store.beginBatch();
    addArtifact("s", "out", "lost-6", true);
    addArtifact("s", "out", "lost-7", true);
    store.rollbackBatch();
    addArtifact("s", "out", "6", true);
    expect(heads()).toEqual([{ artifact_id: "out", part_count: 6, sealed: 0 }]);
    // An append whose webhook row the outbox refuses leaves the head where it was; the batch keeps the rest.
    pushTo("s");
    const admin = new Database(file);
    const seq = store.getHead(scope, "s")!.lastSeq;
    admin.exec(`CREATE TRIGGER refuse_one BEFORE INSERT ON push_outbox WHEN NEW.seq = ${seq + 2} BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    try {
      store.beginBatch();
      addArtifact("s", "out", "7", true);
      expect(() => addArtifact("s", "out", "never", true)).toThrow(/refused/);
      store.commitBatch();
    } finally {
      admin.exec(`DROP TRIGGER refuse_one`);
      admin.close();
    }
    addArtifact("s", "out", "8", true);
    const seal = create(ArtifactSchema, { artifactId: "out", parts: [{ content: { case: "text", value: "9" } }] });
    store.changeArtifact(scope, "s", { artifact: seal, append: true, lastChunk: true }, create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: "s", contextId: "ctx", artifact: seal, append: true, lastChunk: true } } }));
    expect(store.artifactSealed(scope, "s", "out")).toBe(true);
    expect(partsOf("s")).toEqual([["out", "1", "2", "3", "4", "5", "6", "7", "8", "9"]]);
    expect(heads()).toEqual([{ artifact_id: "out", part_count: 9, sealed: 1 }]);
    // A restart reads the heads from the table: the seal holds and a replacement starts over.
    store.close();
    store = new SqliteTaskStore({ filename: file });
    expect(store.artifactSealed(scope, "s", "out")).toBe(true);
    addArtifact("s", "out", "new");
    addArtifact("s", "out", "new-2", true);
    expect(store.artifactSealed(scope, "s", "out")).toBe(false);
    expect(partsOf("s")).toEqual([["out", "new", "new-2"]]);
    expect(heads()).toEqual([{ artifact_id: "out", part_count: 2, sealed: 0 }]);
  });

  it("the events and appended parts a batch writes for a task are one row each, read from any seq inside the batch, after it and after a reopen", () => {
    createTask("p");
    store.beginBatch();
    setStatus("p", TaskState.WORKING);
    addArtifact("p", "out", "1");
    for (let i = 2; i <= 5; i++) addArtifact("p", "out", String(i), true);
    setStatus("p", TaskState.COMPLETED, "done");
    const seqs = (after: number, limit?: number) => store.eventsAfter(scope, "p", after, limit).map((e) => e.seq);
    const kinds = () => store.eventsAfter(scope, "p", 0).map((e) => e.event.payload.case);
    const read = () => ({ all: seqs(0), mid: seqs(4), page: seqs(0, 3), midPage: seqs(2, 2), past: seqs(8), parts: partsOf("p"), kinds: kinds() });
    const expected = {
      all: [1, 2, 3, 4, 5, 6, 7, 8],
      mid: [5, 6, 7, 8],
      page: [1, 2, 3],
      midPage: [3, 4],
      past: [],
      parts: [["out", "1", "2", "3", "4", "5"]],
      kinds: ["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"],
    };
    // Inside the batch: seq 1 is stored, 2..8 are held.
    expect(read()).toEqual(expected);
    store.commitBatch();
    expect(rowsOf("events", "p")).toEqual([{ at: 1, n: 1 }, { at: 2, n: 7 }]);
    expect(rowsOf("artifact_parts", "p")).toEqual([{ at: 0, n: 5 }]);
    expect(read()).toEqual(expected);
    store.close();
    store = new SqliteTaskStore({ filename: file });
    expect(read()).toEqual(expected);
    // An append in the next batch is a row of its own, read on from the packed ones.
    addArtifact("p", "out", "6", true);
    expect(rowsOf("artifact_parts", "p")).toEqual([{ at: 0, n: 5 }, { at: 5, n: 1 }]);
    expect(partsOf("p")).toEqual([["out", "1", "2", "3", "4", "5", "6"]]);
    expect(seqs(7)).toEqual([8, 9]);
    // §4.2.2: a replacement drops the parts held for the artifact in the same batch as well as the stored ones.
    store.beginBatch();
    addArtifact("p", "out", "7", true);
    addArtifact("p", "out", "new");
    addArtifact("p", "out", "new-2", true);
    expect(partsOf("p")).toEqual([["out", "new", "new-2"]]);
    addArtifact("p", "out", "new-3", true);
    store.commitBatch();
    expect(partsOf("p")).toEqual([["out", "new", "new-2", "new-3"]]);
    expect(rowsOf("artifact_parts", "p")).toEqual([{ at: 0, n: 2 }, { at: 2, n: 1 }]);
  });

  it("a webhook reads its event out of a packed row, each in turn", () => {
    createTask("w");
    pushTo("w");
    store.beginBatch();
    setStatus("w", TaskState.WORKING);
    addArtifact("w", "out", "1");
    setStatus("w", TaskState.COMPLETED);
    store.commitBatch();
    expect(rowsOf("events", "w")).toEqual([{ at: 1, n: 1 }, { at: 2, n: 3 }]);
    const delivered: string[] = [];
    for (let d = store.dueDeliveries(Date.now(), 10)[0]; d; d = store.dueDeliveries(Date.now(), 10)[0]) {
      const p = d.payload.payload;
      delivered.push(`${d.seq} ${p.case} ${p.case === "statusUpdate" ? TaskState[p.value.status!.state] : p.case === "task" ? TaskState[p.value.status!.state] : ""}`);
      store.deliverySucceeded(d.id);
    }
    // The terminal event, then the final Task after it.
    expect(delivered).toEqual(["2 statusUpdate WORKING", "3 artifactUpdate ", "4 statusUpdate COMPLETED", "4 task COMPLETED"]);
  });

  it("rows written one event or part each (as before rows were packed) read on with packed ones", () => {
    createTask("old");
    const admin = new Database(file);
    try {
      const pk = (admin.prepare(`SELECT pk FROM tasks WHERE id = 'old'`).get() as { pk: number }).pk;
      const artifact = create(ArtifactSchema, { artifactId: "out", parts: [{ content: { case: "text", value: "a" } }, { content: { case: "text", value: "b" } }] });
      const event = create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: "old", contextId: "ctx", artifact } } });
      // The columns as schema 8 had them: n is left to its default.
      admin.prepare(`INSERT INTO events (task_pk, seq, event) VALUES (?, 2, ?)`).run(pk, toBinary(StreamResponseSchema, event));
      admin.prepare(`INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) VALUES (?, 'out', 1, ?, 2, 0)`).run(pk, toBinary(ArtifactSchema, create(ArtifactSchema, { artifactId: "out" })));
      artifact.parts.forEach((part, i) => admin.prepare(`INSERT INTO artifact_parts (task_pk, artifact_id, idx, part) VALUES (?, 'out', ?, ?)`).run(pk, i, toBinary(PartSchema, part)));
      admin.prepare(`UPDATE tasks SET last_seq = 2, artifact_count = 1 WHERE pk = ?`).run(pk);
    } finally {
      admin.close();
    }
    store.close();
    store = new SqliteTaskStore({ filename: file });
    store.beginBatch();
    addArtifact("old", "out", "c", true);
    addArtifact("old", "out", "d", true);
    store.commitBatch();
    expect(rowsOf("artifact_parts", "old")).toEqual([{ at: 0, n: 1 }, { at: 1, n: 1 }, { at: 2, n: 2 }]);
    expect(partsOf("old")).toEqual([["out", "a", "b", "c", "d"]]);
    expect(store.eventsAfter(scope, "old", 1).map((e) => `${e.seq} ${e.event.payload.case}`)).toEqual(["2 artifactUpdate", "3 artifactUpdate", "4 artifactUpdate"]);
  });

  it("a batch whose held events cannot be written fails at its commit and rolls back whole", () => {
    createTask("f");
    const admin = new Database(file);
    admin.exec(`CREATE TRIGGER refuse_f BEFORE INSERT ON events WHEN NEW.task_pk = (SELECT pk FROM tasks WHERE id = 'f') BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    try {
      store.beginBatch();
      createTask("g");
      setStatus("f", TaskState.WORKING);
      addArtifact("f", "out", "1");
      expect(() => store.commitBatch()).toThrow(/refused/);
      store.rollbackBatch();
    } finally {
      admin.exec(`DROP TRIGGER refuse_f`);
      admin.close();
    }
    expect(store.getHead(scope, "g")).toBeUndefined();
    expect(store.getHead(scope, "f")).toEqual({ id: "f", contextId: "ctx", state: TaskState.SUBMITTED, lastSeq: 1 });
    expect(stored("f")).toEqual({ state: TaskState.SUBMITTED, last_seq: 1, history_count: 1, artifact_count: 0, events: 1, history: 1 });
    expect(rowsOf("artifact_parts", "f")).toEqual([]);
    // The next write goes on from what is stored.
    expect(setStatus("f", TaskState.WORKING)).toBe(2);
    expect(store.eventsAfter(scope, "f", 0).map((e) => e.seq)).toEqual([1, 2]);
  });

  it("holds settled tasks apart and only the last few: a task in flight stays held while many others settle", () => {
    store.beginBatch();
    createTask("in-flight");
    setStatus("in-flight", TaskState.WORKING);
    store.commitBatch();
    const settledCount = SETTLED_RECORDS + 36;
    store.beginBatch();
    for (let i = 0; i < settledCount; i++) {
      createTask(`done-${i}`);
      setStatus(`done-${i}`, TaskState.COMPLETED);
    }
    store.commitBatch();
    // Rows changed behind the store's back show which tasks it reads from the table and which it holds.
    const db = new Database(file);
    try {
      db.prepare(`UPDATE tasks SET last_seq = 99 WHERE id IN ('in-flight', 'done-0', 'done-${settledCount - 1}')`).run();
    } finally {
      db.close();
    }
    expect(store.getHead(scope, "in-flight")?.lastSeq).toBe(2);
    expect(store.getHead(scope, `done-${settledCount - 1}`)?.lastSeq).toBe(2);
    expect(store.getHead(scope, "done-0")?.lastSeq).toBe(99);
  });

  it("holds a bounded number of rows: a task read back after many others is read from the table", () => {
    const n = 10_050;
    for (let from = 0; from < n; from += 1_000) {
      store.beginBatch();
      for (let i = from; i < Math.min(n, from + 1_000); i++) createTask(`many-${i}`);
      store.commitBatch();
    }
    setStatus("many-0", TaskState.WORKING);
    expect(store.getHead(scope, "many-0")).toEqual({ id: "many-0", contextId: "ctx", state: TaskState.WORKING, lastSeq: 2 });
    expect(store.getHead(scope, `many-${n - 1}`)?.lastSeq).toBe(1);
    expect(store.listTasks(scope, { limit: 1 }).total).toBe(n);
    expect(stored("many-0")).toMatchObject({ state: TaskState.WORKING, last_seq: 2, events: 2 });
  });
});
