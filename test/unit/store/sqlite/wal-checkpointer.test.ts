import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { WalCheckpointer } from "../../../../src/store/sqlite/wal-checkpointer.js";
import { until } from "../../../helpers/until.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A database in WAL mode whose writer never checkpoints by itself, so that only the thread can. */
function walDatabase(): { db: Database.Database; filename: string } {
  const dir = mkdtempSync(join(tmpdir(), "a2a-ckpt-"));
  dirs.push(dir);
  const filename = join(dir, "db.sqlite");
  const db = new Database(filename);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)");
  return { db, filename };
}

function writeRows(db: Database.Database, n: number): void {
  const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
  db.transaction(() => {
    for (let i = 0; i < n; i++) insert.run("x".repeat(500));
  })();
}

describe("WalCheckpointer (the log copied into the database off the writer's thread)", () => {
  it("copies what the writer commits into the database file while the writer goes on writing", async () => {
    const { db, filename } = walDatabase();
    const failures: string[] = [];
    const ckpt = new WalCheckpointer(filename, (m) => failures.push(m));
    try {
      const before = statSync(filename).size;
      for (let round = 0; round < 5; round++) {
        writeRows(db, 200);
        await new Promise((r) => setTimeout(r, 5));
      }
      // The writer never checkpoints (wal_autocheckpoint = 0): only the thread can move the rows into the file.
      await until("the rows reach the database file", async () => statSync(filename).size >= before + 1000 * 500, 5_000);
      expect((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(1000);
      expect(failures).toEqual([]);
    } finally {
      await ckpt.stop();
      db.close();
    }
    // The thread's connection closed first, so the writer's close was the last: SQLite removed the log.
    expect(existsSync(`${filename}-wal`)).toBe(false);
  });

  it("reports a database it cannot open once, and stops cleanly", async () => {
    const failures: string[] = [];
    const ckpt = new WalCheckpointer(join(tmpdir(), "a2a-ckpt-missing", "none.sqlite"), (m) => failures.push(m));
    await until("the thread reports its failure", async () => failures.length > 0, 5_000);
    await ckpt.stop();
    expect(failures.length).toBe(1);
    expect(failures[0]).toMatch(/unable to open|directory does not exist|does not exist/i);
  });
});
