import { join } from "node:path";
import { DEFAULT_LIMITS, silentLogger } from "../core/index.js";
import { DATABASE_FILE, lockDataDir, PostgresTaskStore, SqliteTaskStore, WalCheckpointer, type TaskStore } from "../store/index.js";
import type { HubOptions } from "./hub-options.js";

/** The hub's store, opened, and what gives it (and a SQLite data directory's lock) back. */
export interface OpenedStore {
  readonly store: TaskStore;
  /** OTel's `db.system` for the store's spans. */
  readonly system: "sqlite" | "postgresql";
  /** At the end of a graceful stop: the store closed, the data directory unlocked. */
  readonly release: () => void | Promise<void>;
  /** When the start fails after the store opened: PostgreSQL's pool closed, SQLite's data directory unlocked. */
  readonly abandon: () => void | Promise<void>;
}

/**
 * Opens the store a hub's options name: PostgreSQL when `store` gives a
 * URL (no data directory, so no lock; the schema is migrated under an
 * advisory lock), else SQLite in the data directory, locked first.
 */
export async function openStore(options: HubOptions): Promise<OpenedStore> {
  const maxHistoryMessages = options.limits?.maxHistoryMessages ?? DEFAULT_LIMITS.maxHistoryMessages;
  if (options.store) {
    const logger = options.logger ?? silentLogger;
    const store = await PostgresTaskStore.open({
      url: options.store.url,
      poolSize: options.store.poolSize,
      maxHistoryMessages,
      onIdleError: (error) => logger.warn("an idle PostgreSQL connection broke; the pool replaces it", { error: error.message }),
      onBackgroundError: (error) => logger.error("a store write outside a unit of work was not stored", { error: error.message }),
      fleet: {
        leaseMs: options.store.leaseMs,
        onProblem: (what, error, lostWork) => logger[lostWork ? "error" : "warn"](what, { error: error instanceof Error ? error.message : String(error) }),
      },
    });
    return { store, system: "postgresql", release: () => store.close(), abandon: () => store.close() };
  }
  // One hub per data directory, taken before the database is opened: the
  // store writes as the file's only writer, and the start-up fails the
  // tasks it finds in flight, which would be another live hub's.
  const lock = lockDataDir(options.dataDir ?? "data");
  try {
    const filename = join(lock.dataDir, DATABASE_FILE);
    const store = new SqliteTaskStore({ filename, maxHistoryMessages });
    const logger = options.logger ?? silentLogger;
    const checkpointer = new WalCheckpointer(filename, (error) => logger.warn("the background checkpoint of the SQLite log failed; the writer's own checkpoints go on", { error }));
    return {
      store,
      system: "sqlite",
      release: async () => {
        await checkpointer.stop();
        store.close();
        lock.release();
      },
      abandon: async () => {
        await checkpointer.stop();
        lock.release();
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}
