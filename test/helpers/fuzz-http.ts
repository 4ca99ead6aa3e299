import * as http from "node:http";
import fc from "fast-check";

/** One request exactly as the fuzzer means it: any method, any target, a body on any method. */
export interface RawRequest {
  readonly method: string;
  /** Path and query as sent on the request line, unnormalised. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/** One answer, body read in full. */
export interface RawReply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The media type of Content-Type, without parameters. */
  readonly type: string;
  readonly body: Buffer;
}

/**
 * Sends raw requests over a keep-alive agent. node:http rather than fetch:
 * fetch normalises paths (dot segments, percent-encoding) and refuses a
 * body on GET, and the fuzzer wants to send exactly those.
 */
export class RawHttpClient {
  private readonly agent: http.Agent;

  constructor(
    private readonly base: URL,
    maxSockets: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  /** Sends one request; rejects when no complete answer arrived within `timeoutMs`. */
  send(request: RawRequest, timeoutMs: number): Promise<RawReply> {
    const body = request.body === undefined ? undefined : typeof request.body === "string" ? Buffer.from(request.body, "utf8") : Buffer.from(request.body);
    return new Promise<RawReply>((resolve, reject) => {
      let settled = false;
      const finish = (f: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        f();
      };
      const req = http.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method: request.method,
          path: request.target,
          headers: { ...request.headers, ...(body === undefined ? {} : { "content-length": String(body.length) }) },
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (e) => finish(() => reject(e)));
          res.on("end", () =>
            finish(() =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                type: (res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase(),
                body: Buffer.concat(chunks),
              }),
            ),
          );
        },
      );
      const timer = setTimeout(() => {
        finish(() => reject(new Error(`no complete answer within ${timeoutMs} ms (a hang)`)));
        req.destroy();
      }, timeoutMs);
      req.on("error", (e) => finish(() => reject(e)));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The fast-check seed of a fuzz run: FUZZ_SEED when set, so that a failure printed with its seed replays. */
export function fuzzSeed(fallback: number): number {
  const raw = process.env.FUZZ_SEED;
  if (raw === undefined || raw.trim() === "") return fallback;
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${raw}`);
  return seed;
}

/** Counts of what a fuzz run sent and got back, for the report and for assertions. */
export class FuzzStats {
  exchanges = 0;
  readonly byKind = new Map<string, number>();
  readonly byOutcome = new Map<string, number>();
  readonly byBoth = new Map<string, number>();

  count(kind: string, outcome: string): void {
    this.exchanges++;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    this.byOutcome.set(outcome, (this.byOutcome.get(outcome) ?? 0) + 1);
    this.byBoth.set(`${kind} → ${outcome}`, (this.byBoth.get(`${kind} → ${outcome}`) ?? 0) + 1);
  }

  outcomes(match: (outcome: string) => boolean): number {
    let n = 0;
    for (const [o, c] of this.byOutcome) if (match(o)) n += c;
    return n;
  }

  summary(): string {
    const sorted = (m: Map<string, number>) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ");
    const detail = process.env.FUZZ_VERBOSE ? `\n  by both: ${sorted(this.byBoth)}` : "";
    return `${this.exchanges} exchanges\n  by generator: ${sorted(this.byKind)}\n  by outcome: ${sorted(this.byOutcome)}${detail}`;
  }
}

/** How a fuzz run sends its cases and judges each answer. */
export interface FuzzRun<C> {
  readonly cases: fc.Arbitrary<C>;
  /** Exchanges to send in all. */
  readonly total: number;
  /** Exchanges in flight at once (one property run sends this many together). */
  readonly concurrency: number;
  readonly seed: number;
  /** Sends one case and returns what is wrong with its answer (empty: nothing). */
  exchange(c: C): Promise<string[]>;
  /** A short description of a case for failure reports (bodies can be megabytes). */
  describe(c: C): string;
}

/**
 * Runs a fuzz property: groups of `concurrency` generated cases are sent
 * together, and the property fails when any answer is wrong or missing.
 * Shrinking re-sends requests and is off unless FUZZ_SHRINK is set; the
 * failure names its seed and path either way (replay with FUZZ_SEED and
 * FUZZ_PATH).
 */
export async function runFuzz<C>(run: FuzzRun<C>): Promise<void> {
  const described = run.cases.map((c) => Object.assign(c as object, { [fc.toStringMethod]: () => run.describe(c) }) as C);
  const property = fc.asyncProperty(fc.array(described, { minLength: run.concurrency, maxLength: run.concurrency }), async (group) => {
    const problems = await Promise.all(
      group.map(async (c) => {
        let found: string[];
        try {
          found = await run.exchange(c);
        } catch (e) {
          found = [`the exchange failed: ${e instanceof Error ? e.message : String(e)}`];
        }
        return found.map((p) => `${p}\n    case: ${run.describe(c)}`);
      }),
    );
    const all = problems.flat();
    if (all.length > 0) throw new Error(`${all.length} wrong answer(s) (seed ${run.seed}):\n  ${all.slice(0, 10).join("\n  ")}`);
  });
  // FUZZ_PATH (the `path` of a failure report) replays just the failing group.
  const path = process.env.FUZZ_PATH || undefined;
  await fc.assert(property, { seed: run.seed, path, numRuns: Math.ceil(run.total / run.concurrency), endOnFailure: !process.env.FUZZ_SHRINK });
}

/** A case body for a report: its first bytes, with its length. */
export function bodyPreview(body: string | Uint8Array | undefined, max = 300): string {
  if (body === undefined) return "(none)";
  const text = typeof body === "string" ? body : Buffer.from(body).toString("latin1");
  return text.length <= max ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}
