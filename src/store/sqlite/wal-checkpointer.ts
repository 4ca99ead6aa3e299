import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** How long the checkpointing thread rests between two checkpoints. */
const CHECKPOINT_INTERVAL_MS = 20;

/**
 * The thread's whole program, run as CommonJS (`eval`) so that it needs no
 * file of its own next to a bundled server. A PASSIVE checkpoint never
 * waits for a lock (SQLite's wal_checkpoint): one that finds the writer's
 * own checkpoint running is skipped, and the writer is never held up.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma("synchronous = NORMAL");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
let failures = 0;
const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch (e) {
    if (failures++ === 0) parentPort.postMessage({ failed: String(e && e.message || e) });
  }
}, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Copies the write-ahead log into the database file from a thread of its
 * own. A checkpoint syncs the disk twice (the log before it, the database
 * after it: SQLite's WAL with synchronous=NORMAL); run on the writer's
 * thread, those syncs held the event loop (docs/performance.md has the
 * measurements). Here the thread does that work as the log
 * grows; the writer's own automatic checkpoint still runs when the log
 * reaches its threshold, but finds nearly all of it copied, and it is what
 * lets the next write start the log over from its beginning (a log is
 * reset only once a checkpoint has copied all of it).
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  /** Starts checkpointing the database at `filename`, which must exist in WAL mode; `onFailure` hears the first failure. */
  constructor(filename: string, onFailure: (message: string) => void) {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, filename, intervalMs: CHECKPOINT_INTERVAL_MS } });
    this.worker.on("message", (m: { failed?: string }) => m.failed && onFailure(m.failed));
    this.worker.on("error", (e) => onFailure(e.message));
    this.exited = new Promise((resolve) => this.worker.once("exit", () => resolve()));
    // The thread never keeps the process alive: a stop closes it first.
    this.worker.unref();
  }

  /** Stops the thread and closes its connection, so that the writer's close is the last and removes the log. */
  async stop(): Promise<void> {
    // Held by the event loop again until it has exited: a stop awaited at the top level must not find an empty loop.
    this.worker.ref();
    this.worker.postMessage("stop");
    await this.exited;
  }
}
