import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { hashToken } from "../../src/auth/index.js";
import { buildConfig, hubOptionsFromConfig, type HubOptions } from "../../src/server/index.js";
import type { SeedTask } from "./seed-tasks.js";
import { hubCardOf, everyTaskCall, hubClient, outcomeOf, type Outcome } from "./hub-clients.js";

/** Tenants, their tokens, and the agents every tenant calls. */
export const TOKENS: Readonly<Record<string, string>> = { t1: "retention-token-one", t2: "retention-token-two" };
export const AGENTS = ["keep", "brief"] as const;
export const METRICS_TOKEN = "retention-metrics-token";
const DAY = 86_400_000;

/**
 * The rules as the config writes them: hub-wide 30 days after the end and
 * 90 days of silence for interrupted tasks; tenant t2 ends at 10 days;
 * agent `keep` keeps ended tasks 60 days whatever the tenant (the agent's
 * rule is the most specific).
 */
export const RETENTION_CONFIG = {
  retention: { terminalAfter: "30d", interruptedAfter: "90d" },
  tenants: [
    { id: "t1", tokens: [hashToken(TOKENS.t1!)] },
    { id: "t2", tokens: [hashToken(TOKENS.t2!)], retention: { terminalAfter: "10d" } },
  ],
  agents: [
    { id: "keep", kind: "echo", retention: { terminalAfter: "60d" } },
    { id: "brief", kind: "echo" },
  ],
  metrics: { tokenHash: hashToken(METRICS_TOKEN), tenantLabel: true },
};

/** What the test expects of the rules above, written out on its own (not through the hub's code). */
function expiresAfterMs(tenant: string, agent: string, state: TaskState): number | undefined {
  if (state === TaskState.INPUT_REQUIRED || state === TaskState.AUTH_REQUIRED) return 90 * DAY;
  if (state === TaskState.SUBMITTED || state === TaskState.WORKING) return undefined;
  if (agent === "keep") return 60 * DAY;
  return tenant === "t2" ? 10 * DAY : 30 * DAY;
}

/** The hub options the config above gives, through the same path as `npm start`. */
export function retentionHubOptions(extra: Record<string, unknown> = {}): HubOptions {
  return hubOptionsFromConfig(buildConfig({ file: "inline", lineOf: () => undefined, data: { ...RETENTION_CONFIG, ...extra } }, {}));
}

export interface SeededTask extends SeedTask {
  /** Whether retention must delete it. */
  readonly expires: boolean;
}

const STATES = [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED, TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED, TaskState.WORKING];
const AGES_DAYS = [5, 20, 45, 75, 120];

/**
 * Tasks of every state and age in every (tenant, agent), each with an
 * artifact, a ledger entry, and every other one a push config whose
 * deliveries are dead; `bulk` more expired tasks (t1/brief, 200 days) give
 * the sweep something to chew on under load; one expired task still owes a
 * webhook (`owing`) and must stay.
 */
export function retentionSeed(bulk: number): { tasks: SeededTask[]; owing: string } {
  const tasks: SeededTask[] = [];
  let n = 0;
  for (const tenant of Object.keys(TOKENS)) {
    for (const agent of AGENTS) {
      for (const state of STATES) {
        for (const days of AGES_DAYS) {
          const after = expiresAfterMs(tenant, agent, state);
          const ageMs = days * DAY;
          tasks.push({ scope: { tenant, agentId: agent }, id: `seed-${tenant}-${agent}-${TaskState[state]}-${days}d`, state, ageMs, artifacts: 1, sent: true, push: n++ % 2 === 0, expires: after !== undefined && ageMs > after });
        }
      }
    }
  }
  for (let i = 0; i < bulk; i++) tasks.push({ scope: { tenant: "t1", agentId: "brief" }, id: `bulk-${i}`, state: TaskState.COMPLETED, ageMs: 200 * DAY, artifacts: i % 3, sent: i % 2 === 0, expires: true });
  const owing = "owing-webhook";
  tasks.push({ scope: { tenant: "t1", agentId: "brief" }, id: owing, state: TaskState.COMPLETED, ageMs: 200 * DAY, push: true, expires: false });
  return { tasks, owing };
}

/** JSON-RPC to one agent as one tenant. */
export async function rpc(base: string, tenant: string, agent: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(new URL(`v1/a2a/agents/${agent}`, base), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKENS[tenant]}`, "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.json();
}

/** The seeded tasks GetTask does not answer as retention should have left them: found when kept, TaskNotFound when expired. */
export async function wrongAnswers(base: string, tasks: readonly SeededTask[]): Promise<string[]> {
  const wrong: string[] = [];
  // A few calls at a time: the hub's per-address connection limit stays far off.
  for (let i = 0; i < tasks.length; i += 32) {
    await Promise.all(
      tasks.slice(i, i + 32).map(async (t) => {
        const a = (await rpc(base, t.scope.tenant, t.scope.agentId, "GetTask", { id: t.id, historyLength: 0 })).error?.code ?? "ok";
        if (t.expires ? a !== -32001 : a !== "ok") wrong.push(`${t.id}: ${a}`);
      }),
    );
  }
  return wrong;
}

/** Every page of ListTasks of one (tenant, agent): the ids in order, and the totalSize each page gave. */
export async function listAll(base: string, tenant: string, agent: string, maxPages = Number.POSITIVE_INFINITY): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let pageToken = "";
  do {
    const r = await rpc(base, tenant, agent, "ListTasks", { pageSize: 100, ...(pageToken ? { pageToken } : {}) });
    if (r.error) throw new Error(`ListTasks: ${JSON.stringify(r.error)}`);
    ids.push(...(r.result.tasks ?? []).map((t: { id: string }) => t.id));
    totals.push(r.result.totalSize);
    pageToken = r.result.nextPageToken ?? "";
  } while (pageToken && totals.length < maxPages);
  return { ids, totals };
}

/**
 * Where ListTasks of any (tenant, agent), walked page by page, differs from
 * a recount: the seeded tasks that must stay and those the load made; every
 * page's total must be that count.
 */
export async function listProblems(base: string, tasks: readonly SeededTask[], made: ReadonlyMap<string, readonly string[]>): Promise<string[]> {
  const problems: string[] = [];
  for (const tenant of Object.keys(TOKENS)) {
    for (const agent of AGENTS) {
      const kept = tasks.filter((t) => !t.expires && t.scope.tenant === tenant && t.scope.agentId === agent).map((t) => t.id);
      const want = new Set([...kept, ...(made.get(`${tenant}/${agent}`) ?? [])]);
      const { ids, totals } = await listAll(base, tenant, agent);
      const missing = [...want].filter((id) => !ids.includes(id));
      const extra = ids.filter((id) => !want.has(id));
      if (missing.length + extra.length > 0 || ids.length !== want.size) problems.push(`${tenant}/${agent}: ${missing.length} missing, ${extra.length} extra, ${ids.length} listed of ${want.size}`);
      const wrongTotals = totals.filter((n) => n !== want.size);
      if (wrongTotals.length > 0) problems.push(`${tenant}/${agent}: totals ${wrongTotals.join(", ")} where ${want.size} are`);
    }
  }
  return problems;
}

/** What every operation on a task answers, over JSON-RPC, REST and gRPC. */
export async function everyOperation(base: string, tenant: string, agent: string, id: string): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  for (const binding of ["jsonrpc", "rest", "grpc"] as const) {
    const client = await hubClient(hubCardOf(base, agent), binding, { token: TOKENS[tenant]! });
    try {
      const c = everyTaskCall(client, id);
      const [get, cancel, subscribe, followUp, pushCreate, pushList] = await Promise.all([c.get, c.cancel, c.subscribe, c.followUp, c.pushCreate, c.pushList].map(outcomeOf));
      Object.assign(out, { [`${binding} get`]: get, [`${binding} cancel`]: cancel, [`${binding} subscribe`]: subscribe, [`${binding} send`]: followUp, [`${binding} push create`]: pushCreate, [`${binding} push list`]: pushList });
    } finally {
      client.close();
    }
  }
  return out;
}

/** A metric in a scrape: the sum of its series whose labels include `labels`, or undefined when none does. */
export async function metricValue(base: string, name: string, labels = ""): Promise<number | undefined> {
  const text = await (await fetch(new URL("metrics", base), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const lines = text.split("\n").filter((l) => l.startsWith(name) && (l[name.length] === " " || l[name.length] === "{") && l.includes(labels));
  return lines.length === 0 ? undefined : lines.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

/** Concurrent SendMessage calls until `stop()`: each call's latency (ms) and the ids of the tasks they made. */
export function sendLoad(base: string, workers: number): { stop(): Promise<{ latencies: number[]; ids: Map<string, string[]> }>; mark(): number[] } {
  let running = true;
  const latencies: number[] = [];
  const ids = new Map<string, string[]>();
  const all = Array.from({ length: workers }, async (_, w) => {
    const tenant = w % 2 === 0 ? "t1" : "t2";
    const agent = AGENTS[w % AGENTS.length]!;
    const key = `${tenant}/${agent}`;
    while (running) {
      const start = performance.now();
      const r = await rpc(base, tenant, agent, "SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "load" }] } });
      latencies.push(performance.now() - start);
      if (!r.result?.task) throw new Error(`SendMessage under load: ${JSON.stringify(r)}`);
      ids.set(key, [...(ids.get(key) ?? []), r.result.task.id]);
    }
  });
  return {
    /** Takes the latencies recorded so far and starts a new window. */
    mark: () => latencies.splice(0),
    stop: async () => {
      running = false;
      await Promise.all(all);
      return { latencies, ids };
    },
  };
}

/**
 * The test's own reads while it waits: a ListTasks walk and a count of the
 * deletions per round, until `enough` says so. Run the same in the window
 * without the sweep and the one with it, so they differ only by the sweep.
 */
export async function observe(list: () => Promise<string[]>, deleted: () => Promise<number>, enough: (deleted: number, elapsedMs: number) => boolean, timeoutMs: number): Promise<string[][]> {
  const pages: string[][] = [];
  const start = performance.now();
  for (;;) {
    pages.push(await list());
    const n = await deleted();
    const elapsed = performance.now() - start;
    if (enough(n, elapsed)) return pages;
    if (elapsed > timeoutMs) throw new Error(`the sweep did not finish within ${timeoutMs} ms (${n} deleted)`);
  }
}

/** Prints what a retention test measured (figures for the report; never asserted). */
export function reportSweep(store: string, seeded: number, seedMs: number, swept: number, sweepMs: number, without: readonly number[], during: readonly number[]): void {
  const figures = (xs: readonly number[]) => `p99 ${percentile(xs, 99).toFixed(1)} ms (p50 ${percentile(xs, 50).toFixed(1)}, n=${xs.length})`;
  console.log(`retention (${store}): seeded ${seeded} tasks in ${seedMs.toFixed(0)} ms; swept ${swept} in ${sweepMs.toFixed(0)} ms; SendMessage ${figures(without)} without the sweep, ${figures(during)} during it`);
}

/** The p-th percentile of `xs` (ms). */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
