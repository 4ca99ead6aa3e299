import { parseArgs } from "node:util";
import { backupDataDir, migrateToPostgres, restoreDataDir, type BackupReport, type MigrateReport } from "../lifecycle/index.js";
import { UsageError, type CliIo } from "./cli-io.js";
import { EXIT } from "./exit-codes.js";

/** `a2a-hub backup --help`. */
export const BACKUP_USAGE = `usage: a2a-hub backup --data DIR --out FILE

  Copies the SQLite database of the data directory DIR to FILE while a hub
  may be serving from it (SQLite's online backup), then verifies the copy
  (integrity_check, the task counters against the tasks) and prints its rows
  per table. FILE is written only once verified.

  --data DIR            the hub's data directory
  --out FILE            where the backup goes
`;

/** `a2a-hub restore --help`. */
export const RESTORE_USAGE = `usage: a2a-hub restore --from FILE --data DIR [--force]

  Verifies the backup FILE and puts it in place as the database of the data
  directory DIR. Refused while a hub holds DIR; refused when DIR already has
  a database unless --force.

  --from FILE           a file written by a2a-hub backup
  --data DIR            the data directory to restore into
  --force               replace the database DIR holds
`;

/** `a2a-hub migrate --help`. */
export const MIGRATE_USAGE = `usage: a2a-hub migrate --from DIR --to postgres://… [--merge]

  Copies the SQLite hub in DIR into the PostgreSQL database at the URL:
  every tenant's tasks with history, artifacts, event logs (same sequence
  numbers: Last-Event-ID resumes still work), push configs, pending and
  dead deliveries, and the send ledger. Then checks every task's checksum
  and the row counts, and prints them. No hub may hold DIR meanwhile.
  Interrupted, run it again with the same arguments: it resumes after the
  last batch it committed. A target that holds other data is refused.

  --from DIR            the hub's data directory
  --to URL              postgres://user:password@host:port/database
  --merge               add to a target that already holds tasks (a task
                        with the same tenant, agent and id there is kept)
`;

/** The data commands, with their usage. */
export const DATA_COMMANDS = { backup: BACKUP_USAGE, restore: RESTORE_USAGE, migrate: MIGRATE_USAGE } as const;

/** Runs `a2a-hub backup` or `a2a-hub restore`; resolves with the exit code. */
export async function runDataCommand(command: keyof typeof DATA_COMMANDS, argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parse(argv, { data: "string", out: "string", from: "string", to: "string", force: "boolean", merge: "boolean", help: "boolean" }, command);
  if (flags.help) return print(io, DATA_COMMANDS[command]);
  const need = (name: string): string => {
    const v = flags[name];
    if (typeof v !== "string" || v === "") throw new UsageError(`${command}: --${name} is required`);
    return v;
  };
  const only = (allowed: string[]): void => {
    const extra = Object.keys(flags).find((k) => flags[k] !== undefined && !allowed.includes(k));
    if (extra) throw new UsageError(`${command} takes ${allowed.map((a) => `--${a}`).join(", ")} only, not --${extra}`);
  };
  if (command === "migrate") {
    only(["from", "to", "merge"]);
    const r = await migrateToPostgres({ from: need("from"), to: need("to"), merge: flags.merge === true, onBatch: (n) => void io.stderr.write(`copied ${n} tasks\r`) });
    return migrated(io, r);
  }
  if (command === "backup") {
    if (flags.from !== undefined || flags.force !== undefined) throw new UsageError("backup takes --data and --out only");
    only(["data", "out"]);
    return report(io, "backup", await backupDataDir(need("data"), need("out")));
  }
  if (flags.out !== undefined) throw new UsageError("restore takes --from, --data and --force only");
  only(["from", "data", "force"]);
  return report(io, "restored", restoreDataDir(need("from"), need("data"), { force: flags.force === true }));
}

function parse(argv: readonly string[], options: Record<string, "string" | "boolean">, command: string): Record<string, string | boolean | undefined> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.entries(options).map(([k, type]) => [k, k === "help" ? { type, short: "h" } : { type }])),
      strict: true,
      allowPositionals: false,
    });
    return values as Record<string, string | boolean | undefined>;
  } catch (e) {
    throw new UsageError(`${command}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function report(io: CliIo, what: string, r: BackupReport): number {
  const rows = Object.entries(r.rows)
    .map(([table, n]) => `${table} ${n}`)
    .join(", ");
  io.stdout.write(`${what} ${r.file} (${r.bytes} bytes, verified): ${rows}\n`);
  return EXIT.ok;
}

function migrated(io: CliIo, r: MigrateReport): number {
  const rows = (Object.keys(r.source) as Array<keyof MigrateReport["source"]>).map((k) => `${k} ${r.source[k]}/${r.target[k]}`).join(", ");
  io.stdout.write(
    `migrated${r.resumed ? " (resumed)" : ""}: ${r.copied} tasks copied by this run, ${r.verified} verified by checksum` +
      `${r.kept.length > 0 ? `, ${r.kept.length} already in the target kept` : ""}, ${r.ledger} send-ledger entries; rows source/target: ${rows}\n`,
  );
  return EXIT.ok;
}

function print(io: CliIo, text: string): number {
  io.stdout.write(text);
  return EXIT.ok;
}
