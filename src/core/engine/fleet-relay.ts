/**
 * Events another replica committed, brought to this replica's readers
 * (a fleet of hubs on one database). The other replica wakes this
 * one with the task and the seqs its unit logged; the relay reads those
 * events from the log once for all local readers of the task and
 * publishes them on the bus, as if they had been written here. The log
 * is the truth and the wake-up only a hint: when wake-ups may have been
 * lost, every open stream catches up from the log by itself.
 */
import type { EventBus } from "../../execution/index.js";
import type { Fleet, TaskStore, TaskWake } from "../../store/index.js";
import type { Logger } from "../logger.js";
import type { OpenStreams } from "./open-streams.js";
import { taskKey } from "./run.js";
import { busEvent, type BusEvent } from "./task-writer.js";

export interface FleetRelayDeps {
  readonly fleet: Fleet;
  readonly store: TaskStore;
  readonly bus: EventBus<BusEvent>;
  readonly streams: OpenStreams;
  readonly logger: Logger;
}

export class FleetRelay {
  /** Per task with local readers: the read in progress (reads of one task are chained, so its events go out in order) and the last seq relayed. */
  private readonly tasks = new Map<string, { chain: Promise<void>; relayed: number }>();
  private readonly stops: Array<() => void> = [];

  constructor(private readonly deps: FleetRelayDeps) {}

  start(): void {
    this.stops.push(this.deps.fleet.onWake((w) => this.wake(w)));
    this.stops.push(
      this.deps.fleet.onLost(() => {
        this.deps.logger.warn("wake-ups from other replicas may have been missed; open streams catch up from the log");
        this.deps.streams.catchUpAll();
      }),
    );
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private wake(w: TaskWake): void {
    const key = taskKey(w.scope, w.taskId);
    // Nobody here reads the task: nothing to read.
    if (this.deps.bus.listenerCount(key) === 0) return;
    let entry = this.tasks.get(key);
    if (!entry) this.tasks.set(key, (entry = { chain: Promise.resolve(), relayed: 0 }));
    const task = entry;
    const read = task.chain.then(async () => {
      if (w.toSeq <= task.relayed) return;
      const after = Math.max(task.relayed, w.fromSeq - 1);
      try {
        for (const e of await this.deps.store.eventsAfter(w.scope, w.taskId, after)) {
          task.relayed = Math.max(task.relayed, e.seq);
          this.deps.bus.publish(key, busEvent(e));
        }
      } catch (e) {
        // The readers of this task catch up from the log when they next can.
        this.deps.logger.warn("could not read events another replica committed", { taskId: w.taskId, error: String(e) });
        this.deps.streams.catchUpAll();
      } finally {
        // Forgotten once nobody reads the task and no read of it is queued behind this one.
        if (task.chain === read && this.deps.bus.listenerCount(key) === 0 && this.tasks.get(key) === task) this.tasks.delete(key);
      }
    });
    task.chain = read;
  }
}
