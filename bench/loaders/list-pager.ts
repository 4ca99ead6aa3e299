/**
 * ListTasks and GetTask latency at store scale, one request at a time from
 * the loader core over gRPC with a real client. Each case is warmed up,
 * then timed in several runs; every answer is checked (page size, the
 * expected first task for deep pages, the asked-for task for GetTask).
 *
 * Deep pages: the page token of the first page is re-aimed at a position
 * deep in the listing (the hub's tokens are a keyset cursor); when the
 * token is not in a form the bench knows, it walks pages instead, as far
 * as a time budget allows, and says how deep it got.
 */
import { TaskState } from "a2a-hub";
import { a2aClient } from "../harness/a2a-clients.js";
import { loaderConfig, printResult } from "../harness/loader-process.js";
import { quantile } from "../harness/stats.js";

/** A place in the newest-first listing: its keyset cursor and the task that opens the page there. */
export interface DeepPoint {
  position: number;
  /** The (status_ms, touch) of the task just before `position`: the cursor a page token names. */
  cursorMs: number;
  cursorTouch: number;
  firstId: string;
}

export interface PagerConfig {
  url: string;
  runs: number;
  samples: number;
  pageSize: number;
  contextId: string;
  /** Tasks in the store, and in the filtered context: every first page's totalSize. */
  total: number;
  totalInContext: number;
  deep: DeepPoint;
  deepInContext: DeepPoint;
  getIds: string[];
}

export interface PagerCase {
  label: string;
  position?: number;
  p50: number[];
  p99: number[];
  errors: number;
  note?: string;
}

const config = loaderConfig<PagerConfig>();
const client = a2aClient(config.url);
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Re-aims a page token of the form `v1:<ms>:<touch>:<fingerprint>` (base64url), or undefined. */
function aimToken(token: string, p: DeepPoint): string | undefined {
  const parts = Buffer.from(token, "base64url").toString("utf8").split(":");
  if (parts.length !== 4 || parts[0] !== "v1") return undefined;
  return Buffer.from(`v1:${p.cursorMs}:${p.cursorTouch}:${parts[3]}`).toString("base64url");
}

async function timeCase(label: string, call: () => Promise<string | undefined>, position?: number): Promise<PagerCase> {
  const c: PagerCase = { label, position, p50: [], p99: [], errors: 0 };
  // Untimed calls first (their answers checked all the same): the first case timed on a new hub paid for its warm-up
  // (code not yet optimized, statements not yet prepared), 6-8 ms a page on PostgreSQL where the same calls later took 3.
  for (let i = 0; i < Math.ceil(config.samples / 2); i++) {
    const problem = await call().catch((e: unknown) => String(e));
    if (problem) {
      c.errors++;
      c.note ??= problem;
    }
  }
  for (let r = 0; r < config.runs; r++) {
    const ms: number[] = [];
    for (let i = 0; i < config.samples; i++) {
      const t0 = now();
      const problem = await call().catch((e: unknown) => String(e));
      ms.push(now() - t0);
      if (problem) {
        c.errors++;
        c.note ??= problem;
      }
    }
    c.p50.push(quantile(ms, 0.5));
    c.p99.push(quantile(ms, 0.99));
  }
  return c;
}

/** A page token deep in the listing: re-aimed when possible, else reached by walking. */
async function deepToken(contextId: string | undefined, p: DeepPoint): Promise<{ token: string; position: number; walked: boolean }> {
  const first = await client.listTasks({ pageSize: config.pageSize, contextId });
  const aimed = aimToken(first.nextPageToken, p);
  if (aimed) return { token: aimed, position: p.position, walked: false };
  let token = first.nextPageToken;
  let position = config.pageSize;
  const until = now() + 60_000;
  while (position + config.pageSize <= p.position && now() < until) {
    const page = await client.listTasks({ pageSize: config.pageSize, contextId, pageToken: token });
    if (!page.nextPageToken) break;
    token = page.nextPageToken;
    position += config.pageSize;
  }
  return { token, position, walked: true };
}

async function listCases(filtered: boolean): Promise<PagerCase[]> {
  const contextId = filtered ? config.contextId : undefined;
  const suffix = filtered ? ", contextId filter" : "";
  const start = await timeCase(`ListTasks first page${suffix}`, async () => {
    const page = await client.listTasks({ pageSize: config.pageSize, contextId });
    const total = filtered ? config.totalInContext : config.total;
    if (page.totalSize !== total) return `first page says totalSize ${page.totalSize}, the store holds ${total}`;
    return page.tasks.length === config.pageSize && page.nextPageToken ? undefined : `first page has ${page.tasks.length} tasks`;
  }, 0);
  const point = filtered ? config.deepInContext : config.deep;
  const deep = await deepToken(contextId, point);
  const deepCase = await timeCase(`ListTasks deep page${suffix}`, async () => {
    const page = await client.listTasks({ pageSize: config.pageSize, contextId, pageToken: deep.token });
    if (page.tasks.length !== config.pageSize) return `deep page has ${page.tasks.length} tasks`;
    if (!deep.walked && page.tasks[0]?.id !== point.firstId) return `deep page starts at ${page.tasks[0]?.id}, expected ${point.firstId}`;
    return undefined;
  }, deep.position);
  if (deep.walked) deepCase.note = `page token not re-aimable: walked to position ${deep.position}`;
  return [start, deepCase];
}

async function main(): Promise<void> {
  const cases = [...(await listCases(false)), ...(await listCases(true))];
  let k = 0;
  cases.push(
    await timeCase("GetTask", async () => {
      const id = config.getIds[k++ % config.getIds.length]!;
      const task = await client.getTask({ id });
      return task.id === id && task.status?.state === TaskState.COMPLETED ? undefined : `GetTask ${id} answered ${task.id}`;
    }),
  );
  printResult({ cases });
}

main().catch((e: unknown) => printResult({ error: e instanceof Error ? e.message : String(e) }));
