import type { PgFleetOptions } from "./fleet/index.js";
import type { PostgresStoreOptions } from "./pool.js";

/** Options of the PostgreSQL store. */
export interface PostgresTaskStoreOptions extends PostgresStoreOptions {
  /** Messages kept in a task's history; older ones are dropped as new ones arrive. Default: all. */
  readonly maxHistoryMessages?: number;
  /** Tasks whose seq and sealed artifacts are held in memory (default 10,000; running ones are never dropped). */
  readonly cacheSize?: number;
  /** Told when a write made outside any unit (committed on its own, a moment later) was not stored. */
  readonly onBackgroundError?: (error: Error) => void;
  /** The fleet's lease and its troubles (several hubs on one database); false: this store serves one hub alone and joins no fleet. */
  readonly fleet?: PgFleetOptions | false;
}
