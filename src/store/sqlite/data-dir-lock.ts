import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The lock file's name inside a data directory. */
export const LOCK_FILE = "hub.lock";

/** The database file's name inside a data directory. */
export const DATABASE_FILE = "a2a-hub.db";

/** Who holds a data directory: what the lock file says. */
export interface LockHolder {
  readonly pid: number;
  /** When that hub took the directory (ISO 8601). */
  readonly since: string;
}

/** A second hub was given a data directory another hub is serving from. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `data directory ${dataDir} is in use by another hub (pid ${holder.pid}, since ${holder.since}; lock file ${join(dataDir, LOCK_FILE)}): ` +
        "one SQLite data directory serves one hub. Give this hub another directory (--data DIR), or stop that one; several hubs on one database need the PostgreSQL store",
    );
    this.name = "DataDirLockedError";
  }
}

/** A data directory held by this process until released. */
export interface DataDirLock {
  readonly dataDir: string;
  /** Removes the lock file (once; later calls do nothing). */
  release(): void;
}

/** Directories this process holds: a lock naming our own pid is ours only if it is in here. */
const heldHere = new Set<string>();

/**
 * Takes `dataDir` for this process, creating it if need be, before anything
 * opens its database: the store holds task rows, the next rowid and the
 * write order in memory as the file's only writer, and a hub's start-up
 * fails the tasks it finds in flight, which would be another live hub's.
 * The lock is a file made whole before it is linked into place (link fails
 * when the name exists, so two hubs starting at once cannot both get it).
 * A lock whose process is gone (killed, crashed) is stale and taken over,
 * as is one naming our own pid that this process does not hold (a
 * restarted container often gets the pid its previous run had).
 * Only the lock file is exclusive: tools may still read the database.
 */
export function lockDataDir(dir: string): DataDirLock {
  const dataDir = resolve(dir);
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, since: new Date().toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  const draft = join(dataDir, `${LOCK_FILE}.${process.pid}.${Date.now()}`);
  writeFileSync(draft, text);
  try {
    for (let attempt = 0; ; attempt++) {
      if (attempt === 5) throw new Error(`could not take the lock ${file}: it keeps changing`);
      try {
        linkSync(draft, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      const found = readLock(file);
      if (found === undefined) continue; // removed meanwhile: try again
      const holder = parseHolder(found);
      if (holder && (attempt > 0 || holderAlive(holder, dataDir))) throw new DataDirLockedError(dataDir, holder);
      // Stale: removed only if it still says what was judged (another hub may have just taken it over).
      if (readLock(file) === found) unlinkQuietly(file);
    }
  } finally {
    unlinkQuietly(draft);
  }
  heldHere.add(dataDir);
  let released = false;
  return {
    dataDir,
    release: () => {
      if (released) return;
      released = true;
      heldHere.delete(dataDir);
      // Only our own lock: one taken over behind our back (never while we live) stays.
      if (readLock(file) === text) unlinkQuietly(file);
    },
  };
}

function readLock(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** The holder a lock file names; undefined for what no hub wrote (stale). */
function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    return Number.isSafeInteger(v.pid) && (v.pid as number) > 0 && typeof v.since === "string" ? { pid: v.pid as number, since: v.since } : undefined;
  } catch {
    return undefined;
  }
}

function holderAlive(holder: LockHolder, dataDir: string): boolean {
  if (holder.pid === process.pid) return heldHere.has(dataDir);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive, someone else's process.
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}
