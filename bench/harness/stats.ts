/** The spread of one measure over its runs: what the report prints for every figure. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/** Median and min/max of a list of run results (NaN-free; empty gives NaN). */
export function spread(values: readonly number[]): Spread {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const mid = v.length >> 1;
  const median = v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
  return { median, min: v[0]!, max: v[v.length - 1]!, n: v.length };
}

/** The q-quantile (0..1) of samples by nearest rank, the way latency tools report p50/p99. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const v = [...samples].sort((a, b) => a - b);
  const rank = Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1));
  return v[rank]!;
}

/** a / b, or NaN when either side is missing. */
export function ratio(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return NaN;
  return a / b;
}
