import { setTimeout as sleep } from "node:timers/promises";
import type { BenchContext } from "./bench-context.js";
import { MachineMeter } from "./proc-stats.js";

/** Cores other processes may keep busy and the machine still counts as quiet. */
const QUIET_CORES = 0.15;

/**
 * On a shared host, other work steals the cores the server and the loader
 * are pinned to. Before a measure starts (our servers idle), this waits
 * until the whole machine is near idle, up to a limit, and returns the
 * cores found busy when it went ahead. The report shows what others took
 * during each timed run either way.
 */
export async function waitForQuiet(ctx: BenchContext, what: string): Promise<number> {
  if (!ctx.options.waitQuiet) return NaN;
  const sampleMs = ctx.options.quick ? 250 : 500;
  const limitMs = ctx.options.quick ? 5_000 : 120_000;
  const until = Date.now() + limitMs;
  let warned = false;
  for (;;) {
    const meter = new MachineMeter();
    await sleep(sampleMs);
    const busy = meter.cores();
    if (!(busy > QUIET_CORES)) return busy;
    if (Date.now() > until) {
      ctx.log(`${what}: machine still busy (${busy.toFixed(2)} cores used by other processes); measuring anyway`);
      return busy;
    }
    if (!warned) {
      ctx.log(`${what}: machine busy (${busy.toFixed(2)} cores used by other processes); waiting up to ${limitMs / 1000} s for it to go quiet`);
      warned = true;
    }
  }
}
