/** RFC 9457 §3: the media type of problem details. */
export const PROBLEM_JSON = "application/problem+json";

/** §14.1: the A2A media type (§11.1). */
export const A2A_JSON = "application/a2a+json";

/** Plain JSON, which most HTTP clients expect. */
export const PLAIN_JSON = "application/json";

/** One media range of an Accept header (RFC 9110 §12.5.1). */
interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
  /** Position in the header, for ties between explicitly named types. */
  readonly index: number;
}

/**
 * Whether the client asks for RFC 9457 problem details rather than the
 * google.rpc.Status body of §11.6: only when its Accept header gives
 * application/problem+json a higher quality than the JSON types the status
 * body is (application/a2a+json, application/json), or the same quality and
 * names it first. No Accept, `*\/*` or plain JSON keeps the §11.6 form,
 * which v1.0.1 makes normative; problem details are for clients of the
 * v1.0 draft that ask for them.
 */
export function prefersProblemDetails(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const problem = quality(ranges, PROBLEM_JSON);
  const a2a = quality(ranges, A2A_JSON);
  const json = quality(ranges, PLAIN_JSON);
  const status = a2a.q > json.q || (a2a.q === json.q && (a2a.explicit ?? Infinity) < (json.explicit ?? Infinity)) ? a2a : json;
  if (problem.q !== status.q) return problem.q > status.q;
  // Equal quality: the one the client names first, if it names problem+json at all.
  return problem.q > 0 && problem.explicit !== undefined && (status.explicit === undefined || problem.explicit < status.explicit);
}

/**
 * §11.1/§14.1: the JSON media type of a response, by the request's Accept
 * (RFC 9110 §12.5.1): application/a2a+json when the client prefers it (a
 * higher quality, or the same and named first), else application/json,
 * also when Accept is absent, `*\/*`, `application/*` or names neither.
 * Clients disagree on the two, and both carry the same body.
 */
export function preferredJsonType(accept: string | undefined): typeof A2A_JSON | typeof PLAIN_JSON {
  if (!accept) return PLAIN_JSON;
  const ranges = parseAccept(accept);
  const a2a = quality(ranges, A2A_JSON);
  const json = quality(ranges, PLAIN_JSON);
  if (a2a.q !== json.q) return a2a.q > json.q ? A2A_JSON : PLAIN_JSON;
  return a2a.explicit !== undefined && (json.explicit === undefined || a2a.explicit < json.explicit) && a2a.q > 0 ? A2A_JSON : PLAIN_JSON;
}

/** The media type of an error body: problem details when asked for (RFC 9457), else the preferred JSON type. */
export function errorMediaType(accept: string | undefined): string {
  return prefersProblemDetails(accept) ? PROBLEM_JSON : preferredJsonType(accept);
}

function parseAccept(accept: string): MediaRange[] {
  const out: MediaRange[] = [];
  accept.split(",").forEach((item, index) => {
    const [range = "", ...params] = item.split(";").map((p) => p.trim().toLowerCase());
    const slash = range.indexOf("/");
    if (slash <= 0) return;
    let q = 1;
    for (const p of params) {
      const m = /^q=([0-9.]+)$/.exec(p);
      if (m) q = Math.min(1, Math.max(0, Number(m[1]) || 0));
    }
    out.push({ type: range.slice(0, slash), subtype: range.slice(slash + 1), q, index });
  });
  return out;
}

/**
 * RFC 9110 §12.5.1: a media type takes the quality of the most specific
 * range that matches it; `explicit` is the position of an exact match.
 */
function quality(ranges: readonly MediaRange[], mediaType: string): { q: number; explicit?: number } {
  const [type, subtype] = mediaType.split("/") as [string, string];
  let best: MediaRange | undefined;
  let bestRank = -1;
  for (const r of ranges) {
    const rank = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === "*" ? 1 : r.type === "*" && r.subtype === "*" ? 0 : -1;
    if (rank > bestRank) {
      best = r;
      bestRank = rank;
    }
  }
  if (!best) return { q: 0 };
  return bestRank === 2 ? { q: best.q, explicit: best.index } : { q: best.q };
}
