import { configFiles } from "./config-files.js";
import type { PostgresCluster } from "./postgres-cluster.js";
import { removeDir, spawnServer, tempDataDir, type ServerProcess } from "./server-process.js";

/** What the fleet's shared config file says besides the store (push rules, say). */
export interface FleetOptions {
  readonly replicas: number;
  /** store.leaseMs: how long a dead replica's tasks stay in flight. */
  readonly leaseMs: number;
  /** More top-level keys of the config file. */
  readonly config?: Record<string, unknown>;
}

/**
 * Hubs as child processes (launcher "node": SIGKILL is a real crash) on one
 * PostgreSQL database, all started from one config file (store.url and
 * store.leaseMs): a fleet as an operator runs it behind a balancer. Slot i
 * is replica i; a restarted slot is a new replica (a new lease) on a new port.
 */
export interface HubFleet {
  /** The database the replicas share. */
  readonly dbUrl: string;
  readonly leaseMs: number;
  /** The process running in each slot now (undefined while it is down). */
  readonly slots: (ServerProcess | undefined)[];
  /** The replica in slot i; throws when it is down. */
  at(i: number): ServerProcess;
  /** The slots whose replica is up. */
  up(): number[];
  /** Starts (or starts again) the replica of slot i. */
  start(i: number): Promise<ServerProcess>;
  /** Sends `sig` to slot i and waits for its exit (SIGTERM: a graceful stop, which must exit 0). */
  stop(i: number, sig: "SIGKILL" | "SIGTERM", ms?: number): Promise<void>;
  /** Replicas that exited while nobody stopped them (a crash), with their stderr's end. */
  crashes(): string[];
  /** Every `"level":"error"` line the fleet's processes wrote, current and past. */
  errorLines(): string[];
  /** Kills whatever still runs and removes the config and data directories. */
  close(): Promise<void>;
}

export async function startHubFleet(cluster: PostgresCluster, options: FleetOptions): Promise<HubFleet> {
  const dbUrl = await cluster.createDatabase("a2a_hub_fleet");
  const files = configFiles("a2a-hub-fleet-");
  const config = files.write("hub.yaml", JSON.stringify({ ...options.config, store: { url: dbUrl, leaseMs: options.leaseMs } }));
  // The store is in PostgreSQL; the data directory is only where spawnServer points --data.
  const dataDir = tempDataDir();
  const slots: (ServerProcess | undefined)[] = Array.from({ length: options.replicas }, () => undefined);
  const past: ServerProcess[] = [];
  const crashes: string[] = [];
  const fleet: HubFleet = {
    dbUrl,
    leaseMs: options.leaseMs,
    slots,
    at: (i) => {
      const s = slots[i];
      if (!s) throw new Error(`replica ${i} is down`);
      return s;
    },
    up: () => slots.flatMap((s, i) => (s ? [i] : [])),
    start: async (i) => {
      if (slots[i]) throw new Error(`replica ${i} is already up`);
      const s = await spawnServer(dataDir, { env: { A2A_HUB_CONFIG: config }, startTimeoutMs: 90_000 });
      slots[i] = s;
      past.push(s);
      void s.exited.then((exit) => {
        if (slots[i] === s) crashes.push(`replica ${i} (pid ${s.pid}) exited ${exit.code ?? exit.signal}; stderr:\n${s.stderr().slice(-3000)}`);
      });
      return s;
    },
    stop: async (i, sig, ms = 20_000) => {
      const s = fleet.at(i);
      slots[i] = undefined;
      s.signal(sig);
      const exit = await s.waitExit(ms);
      if (sig === "SIGTERM" && exit.code !== 0) throw new Error(`replica ${i} exited ${exit.code ?? exit.signal} after SIGTERM; stderr:\n${s.stderr().slice(-2000)}`);
      await s.kill();
    },
    crashes: () => [...crashes],
    errorLines: () => past.flatMap((s) => s.stderr().split("\n").filter((l) => l.includes('"level":"error"'))),
    close: async () => {
      await Promise.all(past.map((s) => s.kill()));
      files.remove();
      removeDir(dataDir);
    },
  };
  try {
    // All at once, as a fleet rolls out: the migration's advisory lock lets one replica migrate and the others wait for it.
    await Promise.all(slots.map((_, i) => fleet.start(i)));
  } catch (e) {
    await fleet.close();
    throw e;
  }
  return fleet;
}
