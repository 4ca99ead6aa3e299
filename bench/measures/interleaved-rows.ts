/**
 * Rows measured side by side rather than one after another: on a shared
 * host other work comes and goes over the seconds one row takes, so servers
 * measured minutes apart differ by more than the few percent (or tens of
 * percent) a ratio target is about. Every server of the section (each
 * fresh) is started first and idles while another is loaded; each settles
 * under untimed load; then each round loads every server once (warm-up,
 * one timed run), the baseline (the first spec) first and the others in an
 * order that rotates from round to round, and the baseline once more at
 * the end (or, asked to alternate, before every other run and once at the
 * end), so each run of another server is compared with the baseline as
 * it stood at that moment (bracketed-rounds.ts). The report's ratios are
 * medians of those per-run ratios.
 */
import type { BenchContext } from "../harness/bench-context.js";
import type { UnaryCell, UnaryRow } from "../harness/results.js";
import { alternatingSchedule, bracketedSchedule, withBaselines } from "./bracketed-rounds.js";
import { cellOfRuns, emptyRow, failRow, RowSession, type RowSpec } from "./unary-row.js";

/** One section of interleaved rows. */
export interface InterleavedSection {
  /** For the progress log. */
  readonly title: string;
  /** The servers; the first is the baseline every other run is compared with. */
  readonly specs: readonly RowSpec[];
  /** Seconds of untimed load each server gets before the rounds (V8 optimizing a fresh server). */
  readonly settleSec: number;
  readonly rounds: number;
  readonly connections: readonly number[];
  /** The baseline between every two other runs (alternatingSchedule) rather than once a round. */
  readonly alternate?: boolean;
}

/** Measures the section's rows; failures are recorded on their rows, not thrown. Every server is stopped before it returns. */
export async function measureInterleaved(ctx: BenchContext, section: InterleavedSection): Promise<UnaryRow[]> {
  const { specs } = section;
  const rows = specs.map(emptyRow);
  const sessions: Array<RowSession | undefined> = [];
  ctx.log(`${section.title}: ${specs.length} servers, loaded in turn`);
  try {
    for (const [i, spec] of specs.entries()) {
      try {
        sessions[i] = await RowSession.open(ctx, spec, rows[i]!);
      } catch (e) {
        failRow(ctx, rows[i]!, e);
      }
    }
    const live = (i: number) => (rows[i]!.status === "ok" ? sessions[i] : undefined);
    // Settle first, every server, before any is timed.
    for (const i of specs.keys()) {
      try {
        await live(i)?.warm(ctx, Math.max(...section.connections), section.settleSec);
      } catch (e) {
        failRow(ctx, rows[i]!, e);
      }
    }
    for (const c of section.connections) {
      const schedule = (section.alternate ? alternatingSchedule : bracketedSchedule)(specs.length, section.rounds);
      const slots: Array<UnaryCell | undefined> = [];
      for (const i of schedule) {
        let cell: UnaryCell | undefined;
        try {
          cell = await live(i)?.load(ctx, c, { runs: 1 });
        } catch (e) {
          failRow(ctx, rows[i]!, e);
        }
        slots.push(cell);
        logSlot(ctx, specs[i]!.id, c, slots.length - 1, cell);
      }
      const runs = withBaselines(schedule, slots.map((cell) => cell?.perRun?.[0]));
      specs.forEach((_, i) => {
        const cells = schedule.flatMap((server, slot) => (server === i && slots[slot] ? [{ ...slots[slot]!, perRun: [runs[slot]!] }] : []));
        if (cells.length > 0 && live(i)) rows[i]!.cells.push(cellOfRuns(cells));
      });
    }
    for (const i of specs.keys()) {
      try {
        await live(i)?.check();
      } catch (e) {
        failRow(ctx, rows[i]!, e);
      }
    }
  } finally {
    for (const s of sessions) await s?.stop();
  }
  return rows;
}

/**
 * One line per timed run in the progress log: the figures a section's
 * medians are taken from, so a run's spread can be read afterwards (on a
 * shared host the same server's CPU per call moves between rounds by far
 * more than the costs being measured).
 */
function logSlot(ctx: BenchContext, id: string, connections: number, slot: number, cell: UnaryCell | undefined): void {
  const run = cell?.perRun?.[0];
  if (!run) return;
  const us = run.rps > 0 ? ((run.serverCpu / run.rps) * 1e6).toFixed(0) : "-";
  ctx.log(`  slot ${slot} ${id} at ${connections} conn: ${run.rps.toFixed(0)} req/s, ${us} µs/call, others ${cell!.otherCpu.median.toFixed(2)} cores`);
}
