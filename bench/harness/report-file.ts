import { existsSync, readFileSync, writeFileSync } from "node:fs";

/**
 * One report file for every run. A run of some sections (`--only`) writes
 * them into the report already there, in place of the same sections of an
 * earlier run, and keeps the rest: bench/results.md stays the one report,
 * each section the latest measure of it. A section a later run wrote says
 * so under its heading; the header above the sections describes the run
 * that wrote it.
 */

/** A report cut at its `## ` headings: the header, then each section with its heading. */
interface SplitReport {
  readonly head: string;
  readonly sections: ReadonlyArray<{ readonly key: string; readonly text: string }>;
}

/** The sections merged line by line (a row or a bullet each), not replaced whole. */
const LINE_MERGED = new Set(["Targets", "Notes"]);

/** What names a section across runs: its heading up to a colon or a parenthesis ("Store scale: 1,000,000 tasks" → "Store scale"). */
function sectionKey(heading: string): string {
  return /^## ([^:(\n]*)/.exec(heading)![1]!.trim();
}

function split(report: string): SplitReport {
  const [head = "", ...rest] = report.split(/\n(?=## )/);
  return { head: head.trimEnd(), sections: rest.map((text) => ({ key: sectionKey(text), text: text.trimEnd() })) };
}

/** What names a line of Targets or Notes: a table row's first cell, a bullet's text before its first colon. */
function lineKey(line: string): string | undefined {
  if (line.startsWith("| ") && !line.startsWith("|---")) return line.split(" | ")[0];
  if (line.startsWith("- ")) return line.slice(0, line.indexOf(":") >>> 0);
  return undefined;
}

/** Targets or Notes of two runs: a line of the later run replaces the earlier one of the same key; new keys go last. */
function mergeLines(earlier: string, later: string): string {
  const fresh = new Map<string, string>();
  for (const line of later.split("\n")) {
    const key = lineKey(line);
    if (key !== undefined) fresh.set(key, line);
  }
  const out = earlier.split("\n").map((line) => {
    const key = lineKey(line);
    if (key === undefined || !fresh.has(key)) return line;
    const replacement = fresh.get(key)!;
    fresh.delete(key);
    return replacement;
  });
  return [...out, ...fresh.values()].join("\n");
}

/** "run of <date> (git <rev>)", read from a report's header. */
function provenance(head: string): string {
  const date = /\*\*Date\*\*: ([^;\n]+)/.exec(head)?.[1] ?? "an unknown date";
  const rev = /a2a-hub [^ ]+ \(git ([^)]+)\)/.exec(head)?.[1] ?? "unknown";
  return `run of ${date} (git ${rev})`;
}

/**
 * The report after a run: `fresh` alone when there is no earlier report or
 * the run measured every section the earlier one holds; otherwise the
 * earlier report with the fresh sections in place of their namesakes (new
 * ones before Notes), each marked with the run it came from; Targets and
 * Notes merge row by row.
 */
export function mergeReport(earlier: string | undefined, fresh: string, label: string): string {
  if (earlier === undefined) return fresh;
  const before = split(earlier);
  const now = split(fresh);
  const measured = (r: SplitReport) => r.sections.filter((s) => !LINE_MERGED.has(s.key)).map((s) => s.key);
  const freshKeys = new Set(measured(now));
  if (measured(before).every((k) => freshKeys.has(k))) return fresh;

  const mark = `_This section: ${provenance(now.head)}, \`${label}\`; the header above describes the run of the sections without such a line._`;
  const marked = (text: string): string => {
    const [heading, ...body] = text.split("\n");
    return `${heading}\n\n${mark}\n${body.join("\n")}`;
  };
  const pending = new Map(now.sections.map((s) => [s.key, s.text]));
  const sections: string[] = [];
  for (const s of before.sections) {
    const later = pending.get(s.key);
    pending.delete(s.key);
    if (later === undefined) sections.push(s.text);
    else sections.push(LINE_MERGED.has(s.key) ? mergeLines(s.text, later) : marked(later));
  }
  for (const [key, text] of pending) {
    if (key === "Targets") sections.unshift(text);
    else if (key === "Notes") sections.push(text);
    else {
      const notesAt = sections.findIndex((t) => sectionKey(t) === "Notes");
      sections.splice(notesAt < 0 ? sections.length : notesAt, 0, marked(text));
    }
  }
  return [before.head, ...sections].join("\n\n") + "\n";
}

/** Writes a run's report to `out`, merged into the report already there (mergeReport). */
export function writeReport(out: string, fresh: string, label: string): string {
  const report = mergeReport(existsSync(out) ? readFileSync(out, "utf8") : undefined, fresh, label);
  writeFileSync(out, report);
  return report;
}
