const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The longest duration accepted: ten years, far below where milliseconds lose precision. */
const MAX_MS = 10 * 365 * 86_400_000;

/**
 * A duration as the config writes it: a whole number and a unit, `500ms`,
 * `1s`, `15m`, `12h`, `30d`, in milliseconds; undefined when malformed.
 */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNITS[m[2]!]!;
  return ms > 0 && ms <= MAX_MS ? ms : undefined;
}

/** What a malformed duration is told. */
export const DURATION_HINT = "must be a duration above zero and at most ten years: a whole number and ms, s, m, h or d (500ms, 1s, 15m, 30d)";
