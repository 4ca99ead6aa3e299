/**
 * `npx tsx bench/merge-report.ts <report.md> [into.md]`: writes the sections
 * of a report written elsewhere (`--out`) into the one report,
 * bench/results.md by default, as a run of those sections would have
 * (harness/report-file.ts), and removes nothing.
 */
import { readFileSync } from "node:fs";
import { writeReport } from "./harness/report-file.js";

const [from, into = "bench/results.md"] = process.argv.slice(2);
if (!from) {
  process.stderr.write("usage: npx tsx bench/merge-report.ts <report.md> [into.md]\n");
  process.exit(2);
}
writeReport(into, readFileSync(from, "utf8"), `merged from ${from}`);
process.stdout.write(`merged ${from} into ${into}\n`);
