import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "./server-process.js";

const run = promisify(execFile);

/** Debian's postgresql-15 server binaries, which `.ci/run` installs; no server needs to be running. */
export const PG_BIN = process.env.A2A_HUB_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** A server given from outside (its role needs CREATEDB: each test gets a database of its own). */
const EXTERNAL_URL = process.env.A2A_HUB_TEST_PG_URL || undefined;

const HOW_TO_ENABLE =
  "install Debian's postgresql-15 (as .ci/run does) or set A2A_HUB_TEST_PG_URL=postgres://user:pass@host:5432/db (a role with CREATEDB)";

/** initdb refuses to run as root: as root the cluster belongs to the `postgres` user, reached through runuser. */
const asRoot = process.getuid?.() === 0;

function postgresUserExists(): boolean {
  return spawnSync("id", ["-u", "postgres"], { stdio: "ignore" }).status === 0;
}

/** Why the PostgreSQL tests cannot run here, or undefined when they can. */
function unavailableBecause(): string | undefined {
  if (EXTERNAL_URL) return undefined;
  if (!existsSync(join(PG_BIN, "initdb"))) return `no PostgreSQL server binaries at ${PG_BIN}`;
  if (asRoot && !postgresUserExists()) return "running as root and there is no `postgres` user for initdb";
  return undefined;
}

const reason = unavailableBecause();

/** Whether PostgreSQL tests can run here: a private cluster can be started, or A2A_HUB_TEST_PG_URL names one. */
export const hasPostgres = reason === undefined;

/** Whether the server is a private cluster, which tests may kill and restart (never a server A2A_HUB_TEST_PG_URL names). */
export const canKillPostgres = hasPostgres && !EXTERNAL_URL;

/**
 * Prints the one line saying why `file`'s tests skip and how to enable them.
 * With A2A_HUB_REQUIRE_PG set (CI), a machine without PostgreSQL is an error instead.
 */
export function noticePostgresSkip(file: string): void {
  if (hasPostgres) return;
  const line = `${file} skipped: ${reason}; to run it, ${HOW_TO_ENABLE}`;
  if (process.env.A2A_HUB_REQUIRE_PG) throw new Error(`A2A_HUB_REQUIRE_PG is set but ${line}`);
  console.warn(line);
}

/** Runs a server binary as the cluster's owner. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, bin);
  return asRoot ? ["runuser", ["-u", "postgres", "--", path, ...args]] : [path, args];
}

async function pgRun(bin: string, args: string[]): Promise<void> {
  const [cmd, argv] = pgCommand(bin, args);
  await run(cmd, argv, { timeout: 60_000 });
}

function pgRunSync(bin: string, args: string[]): void {
  const [cmd, argv] = pgCommand(bin, args);
  spawnSync(cmd, argv, { stdio: "ignore", timeout: 30_000 });
}

/** A URL naming another database on the same server. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A PostgreSQL server for tests: a private cluster in a temporary directory
 * (initdb + pg_ctl on a free loopback port), or the server A2A_HUB_TEST_PG_URL
 * names. fsync is off (a test database need not survive a power cut) but
 * commits stay synchronous: a commit has reached the kernel when it returns,
 * so `kill()`, a process crash, loses nothing acknowledged.
 */
export class PostgresCluster {
  private readonly databases: string[] = [];
  private stopped = false;
  private readonly exitHook = () => this.cleanupSync();

  private constructor(
    /** URL of the server's maintenance database. */
    readonly url: string,
    /** The private cluster's directory; undefined for A2A_HUB_TEST_PG_URL. */
    private readonly dir: string | undefined,
  ) {
    // A test run that dies before its afterAll must not leave a server behind.
    if (dir) process.once("exit", this.exitHook);
  }

  /** The postmaster's pid (its first line of postmaster.pid); undefined for A2A_HUB_TEST_PG_URL or a stopped server. */
  get serverPid(): number | undefined {
    if (!this.dir) return undefined;
    try {
      return Number(readFileSync(join(this.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    } catch {
      return undefined;
    }
  }

  /** Starts a private cluster, or connects to A2A_HUB_TEST_PG_URL. Call only when `hasPostgres`. */
  static async start(): Promise<PostgresCluster> {
    if (reason) throw new Error(`PostgreSQL is not available: ${reason}`);
    if (EXTERNAL_URL) return new PostgresCluster(EXTERNAL_URL, undefined);
    const dir = mkdtempSync(join(tmpdir(), "a2a-hub-pg-"));
    if (asRoot) chownSync(dir, Number(spawnSync("id", ["-u", "postgres"]).stdout.toString().trim()), -1);
    const data = join(dir, "data");
    const user = asRoot ? "postgres" : userInfo().username;
    await pgRun("initdb", ["-D", data, "-U", user, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions"]);
    // The server runs as the cluster's owner, who can read what root appends here.
    appendFileSync(
      join(data, "postgresql.conf"),
      [
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        "fsync = off",
        "full_page_writes = off",
        "shared_buffers = 32MB",
        "max_connections = 200",
        "",
      ].join("\n"),
    );
    let lastError: unknown;
    // The port is free when chosen but another process may take it before the server binds it.
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      const cluster = new PostgresCluster(`postgres://${user}@127.0.0.1:${port}/postgres`, dir);
      try {
        await cluster.pgCtlStart(port);
        return cluster;
      } catch (e) {
        lastError = e;
        process.removeListener("exit", cluster.exitHook);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the private PostgreSQL cluster did not start: ${String(lastError)}`);
  }

  /** A new empty database on the server (dropped by stop()); returns its URL. */
  async createDatabase(prefix = "a2a_hub_test"): Promise<string> {
    const name = `${prefix}_${randomBytes(6).toString("hex")}`;
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      // An identifier cannot be a parameter; the name is made here of [a-z0-9_] only.
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    this.databases.push(name);
    return withDatabase(this.url, name);
  }

  /** Crashes the server: `pg_ctl stop -m immediate`, no checkpoint, every connection cut. */
  async kill(): Promise<void> {
    await this.pgCtl(["stop", "-m", "immediate", "-w"]);
  }

  /** Starts the killed server again on the same port (it recovers from its WAL). */
  async restart(): Promise<void> {
    await this.pgCtlStart(Number(new URL(this.url).port));
  }

  /** Stops the server and removes its directory; for A2A_HUB_TEST_PG_URL, drops the databases made here. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    if (this.dir) {
      this.cleanupSync();
      process.removeListener("exit", this.exitHook);
      return;
    }
    this.stopped = true;
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      for (const name of this.databases) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }

  /** The server's log so far (private cluster only), for a failing test's message. */
  log(): string {
    if (!this.dir) return "";
    try {
      return readFileSync(join(this.dir, "server.log"), "utf8");
    } catch {
      return "";
    }
  }

  private async pgCtlStart(port: number): Promise<void> {
    await this.pgCtl(["start", "-w", "-t", "30", "-l", join(this.dir!, "server.log"), "-o", `-p ${port}`]);
  }

  private async pgCtl(args: string[]): Promise<void> {
    if (!this.dir) throw new Error("only a private cluster can be stopped and started (A2A_HUB_TEST_PG_URL is set)");
    await pgRun("pg_ctl", ["-D", join(this.dir, "data"), ...args]);
  }

  private cleanupSync(): void {
    if (this.stopped || !this.dir) return;
    this.stopped = true;
    pgRunSync("pg_ctl", ["-D", join(this.dir, "data"), "stop", "-m", "immediate", "-w"]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Inside a `describe.skipIf(!hasPostgres)`: one cluster started before the
 * block's tests and stopped after them. Returns its getter (set once started).
 */
export function clusterForTests(): () => PostgresCluster {
  let cluster: PostgresCluster | undefined;
  beforeAll(async () => {
    cluster = await PostgresCluster.start();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new Error("the PostgreSQL cluster has not started");
    return cluster;
  };
}
