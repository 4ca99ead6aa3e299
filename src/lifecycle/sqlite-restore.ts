import { copyFileSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_FILE, lockDataDir } from "../store/index.js";
import { BackupError, verifyDatabase, type BackupReport } from "./sqlite-backup.js";

/** How to restore. */
export interface RestoreOptions {
  /** Replace a database the directory already holds (default: refuse). */
  readonly force?: boolean;
}

/**
 * Puts a backup in place as a data directory's database. The directory's
 * lock is taken first, as a hub takes it, so a directory a live hub holds is
 * refused (DataDirLockedError names the hub); the backup is verified before
 * anything is touched, copied beside the database and renamed over it, and
 * the old WAL and shared-memory files are removed so SQLite replays nothing
 * of the previous database onto the restored one.
 */
export function restoreDataDir(from: string, dataDir: string, options: RestoreOptions = {}): BackupReport {
  const rows = verifyDatabase(from);
  const lock = lockDataDir(dataDir);
  try {
    const target = join(lock.dataDir, DATABASE_FILE);
    if (existsSync(target) && !options.force) {
      throw new BackupError(`${lock.dataDir} already holds a database (${target}); restore into an empty directory, or pass --force to replace it`);
    }
    const partial = `${target}.restoring`;
    copyFileSync(from, partial);
    for (const suffix of ["-wal", "-shm"]) rmSync(`${target}${suffix}`, { force: true });
    renameSync(partial, target);
    return { file: target, bytes: statSync(target).size, rows };
  } finally {
    lock.release();
  }
}
