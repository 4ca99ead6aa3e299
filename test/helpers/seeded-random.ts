/** A reproducible source of random choices, so a failing load run can be replayed with its seed. */
export interface SeededRandom {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
}

/** mulberry32: small, fast and good enough to spread test load; not for anything secret. */
export function seededRandom(seed: number): SeededRandom {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

/** The seed an environment variable names (to replay or vary a run), else `fallback`. */
export function seedFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : fallback;
}
