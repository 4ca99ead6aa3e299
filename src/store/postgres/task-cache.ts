import type { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { isTerminal } from "../../protocol/index.js";
import { isInFlight } from "../task-states.js";
import type { TaskPieces } from "../encoding/index.js";
import type { StoreScope, TaskHead, TaskView } from "../task-store.js";
import { piecesFor, SettledTasks } from "./settled-tasks.js";

/** What the store knows of a task in this process: enough to answer a write without a round trip. */
export interface CachedTask {
  readonly key: string;
  readonly taskId: string;
  readonly contextId: string;
  /** The seq of the task's last event, counting writes of units not yet committed. */
  lastSeq: number;
  state: TaskState;
  /** Artifact id → sealed by a lastChunk, counting writes of units not yet committed. */
  readonly sealed: Map<string, boolean>;
  /** Units (the open one, the one in flight) holding writes to the task: while any does, the entry stays and reads do not overwrite it. */
  pins: number;
}

/** What a read found of a task: its head and artifacts as committed. */
export interface TaskSeen {
  readonly contextId: string;
  readonly lastSeq: number;
  readonly state: TaskState;
  readonly sealed: ReadonlyMap<string, boolean>;
}

export function cacheKey(scope: StoreScope, taskId: string): string {
  return `${scope.tenant}\u0000${scope.agentId}\u0000${taskId}`;
}


/**
 * The per-task cache the PostgreSQL store predicts seqs from (writes
 * return their seq at once and the database fences on it) and answers
 * `artifactSealed` from. Filled by createTask and by every read of a task;
 * bounded, least recently used first, but an entry is never evicted while a
 * unit holds writes to it, nor while its task may still be running here (in flight: a run's next write would be stranded)
 * (core reads a task before it writes it, and a run keeps writing).
 *
 * A read refreshes a held entry only when it found a later seq than the
 * entry has. A task's seqs only grow, and an entry no unit holds is never
 * ahead of the database (a failed unit's entries leave the cache), so a
 * read that found a later seq saw writes the entry never did (another
 * replica's, or a sweep's), and one that found an earlier seq is older
 * than the entry: it was out while a commit of this process landed, or
 * while a later read of the same task came back first. Taking that one
 * would have this process predict a seq the log already holds, and the
 * database would fence its next write to the task.
 */
export class TaskCache {
  /** Least recently used first. */
  private readonly entries = new Map<string, CachedTask>();
  /** Tasks a unit created and ended, whole, until their first read. */
  private readonly settled = new SettledTasks();

  constructor(private readonly maxEntries = 10_000) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry a write needs; throws when core broke its rule (a task written before the store saw it). */
  forWrite(scope: StoreScope, taskId: string): CachedTask {
    const entry = this.touch(cacheKey(scope, taskId));
    if (!entry) {
      throw new Error(
        `store: task ${taskId} in scope ${scope.tenant}/${scope.agentId} was written before it was read in this process (internal error: the PostgreSQL store predicts seqs from what it has seen)`,
      );
    }
    return entry;
  }

  /** Whether a unit holding `entry` wrote on what the cache has since forgotten (an earlier unit with writes to the task failed). */
  forgotten(entry: CachedTask): boolean {
    return this.entries.get(entry.key) !== entry;
  }

  /** The entry, if held (and marks it recently used). */
  find(scope: StoreScope, taskId: string): CachedTask | undefined {
    return this.touch(cacheKey(scope, taskId));
  }

  /**
   * The head of a task this process saw terminal, once no unit holds
   * writes to it: every write it saw has committed (a failed unit's tasks
   * leave the cache), and a terminal task never changes again (§4.1.3), so
   * a blocking send's wait for it need not ask the database.
   */
  terminalHead(scope: StoreScope, taskId: string): TaskHead | undefined {
    const e = this.entries.get(cacheKey(scope, taskId));
    if (!e || e.pins > 0 || !isTerminal(e.state)) return undefined;
    return { id: e.taskId, contextId: e.contextId, state: e.state, lastSeq: e.lastSeq };
  }

  /**
   * The whole task, in the view asked for, when a unit of this process
   * created and ended it and nothing read it since (settled-tasks.ts), on
   * the same terms as terminalHead.
   */
  wholeTask(scope: StoreScope, taskId: string, view: TaskView): TaskPieces | undefined {
    if (!this.terminalHead(scope, taskId)) return undefined;
    const pieces = this.settled.take(cacheKey(scope, taskId));
    return pieces && piecesFor(pieces, view);
  }

  /** Whether a unit (open or in flight) holds writes to the task. */
  pinned(scope: StoreScope, taskId: string): boolean {
    return (this.entries.get(cacheKey(scope, taskId))?.pins ?? 0) > 0;
  }

  /** The task is gone (deleted, or a read found no row): its entry goes, unless a unit holds writes to it. */
  dropped(scope: StoreScope, taskId: string): void {
    const key = cacheKey(scope, taskId);
    this.settled.drop(key);
    if ((this.entries.get(key)?.pins ?? 0) === 0) this.entries.delete(key);
  }

  /** A task created in this process: its log holds the creation event. */
  created(scope: StoreScope, taskId: string, contextId: string, state: TaskState): CachedTask {
    const entry: CachedTask = { key: cacheKey(scope, taskId), taskId, contextId, lastSeq: 1, state, sealed: new Map(), pins: 0 };
    this.entries.delete(entry.key);
    this.entries.set(entry.key, entry);
    this.trim();
    return entry;
  }

  /** What a read found of a task. */
  seen(scope: StoreScope, taskId: string, found: TaskSeen): void {
    const key = cacheKey(scope, taskId);
    const held = this.touch(key);
    if (held) {
      if (held.pins > 0 || found.lastSeq <= held.lastSeq) return;
      held.lastSeq = found.lastSeq;
      held.state = found.state;
      held.sealed.clear();
      for (const [id, s] of found.sealed) held.sealed.set(id, s);
      return;
    }
    this.entries.set(key, { key, taskId, contextId: found.contextId, lastSeq: found.lastSeq, state: found.state, sealed: new Map(found.sealed), pins: 0 });
    this.trim();
  }

  /**
   * A unit settled: the entries it wrote are released. When it failed, their
   * state is unknown (the commit may even have happened before the
   * connection broke): they go at once, and the next read of each task loads
   * it again. A unit opened meanwhile keeps its writes to the old entries;
   * if they were predicted from the failed unit, the database fences them.
   * A committed unit hands over the tasks it created and ended, whole.
   */
  release(entries: Iterable<CachedTask>, failed: boolean, settled: ReadonlyArray<readonly [key: string, pieces: TaskPieces]> = []): void {
    for (const e of entries) {
      e.pins--;
      if (failed && this.entries.get(e.key) === e) this.entries.delete(e.key);
    }
    if (!failed) for (const [key, pieces] of settled) this.settled.put(key, pieces);
    this.trim();
  }

  private touch(key: string): CachedTask | undefined {
    const held = this.entries.get(key);
    if (held) {
      this.entries.delete(key);
      this.entries.set(key, held);
    }
    return held;
  }

  private trim(): void {
    if (this.entries.size <= this.maxEntries) return;
    for (const [key, e] of this.entries) {
      if (this.entries.size <= this.maxEntries) return;
      if (e.pins === 0 && !isInFlight(e.state)) {
        this.entries.delete(key);
        this.settled.drop(key);
      }
    }
  }
}
