/** How the report writes its figures and tables. */
import type { Spread } from "./stats.js";

/** Milliseconds with precision that suits their size. */
export function ms(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return "—";
  return x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0);
}

/** A count, rounded, with thousands separators. */
export function int(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "—" : Math.round(x).toLocaleString("en");
}

/** Bytes in MiB. */
export function mib(bytes: number | undefined): string {
  return bytes === undefined || !Number.isFinite(bytes) ? "—" : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

/** A share as a whole percentage. */
export function pct(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "—" : `${Math.round(x * 100)}%`;
}

/** A ratio, as "1.23×". */
export function times(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : "—";
}

/** "median [min–max]" of a spread, formatted by `f`. */
export function sp(s: Spread | undefined, f: (x: number) => string): string {
  if (!s || s.n === 0) return "—";
  return s.n === 1 ? f(s.median) : `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;
}

/** A Markdown table; a "|" inside a cell is escaped. */
export function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const esc = (c: string) => c.replace(/\|/g, "\\|");
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`)].join("\n");
}
