/**
 * HTTP/1.1 load with autocannon, run in its own process pinned to the
 * loader core. Every response body is checked (response-checks.ts); a wrong
 * body counts as a mismatch. Latencies are kept at full resolution from
 * autocannon's per-response timings (its own histogram rounds to 1 ms).
 *
 * The body's `[<id>]` becomes a new id in every request (a messageId).
 *
 * Config (argv[2], JSON): url, headers, body, connections, warmupSec,
 * durationSec, runs, check. Prints `MARK start|end <i>` around each timed
 * run, so the parent can measure the server's CPU share, then the result.
 */
import autocannon from "autocannon";
import { loaderConfig, printResult, runTimed, timedRun, type TimedRun } from "../harness/loader-process.js";
import { checkBody, type CheckName } from "../harness/response-checks.js";

interface Config {
  /** Several URLs: autocannon spreads the connections over them in turn (replicas behind a round-robin balancer). */
  url: string | string[];
  headers: Record<string, string>;
  body: string;
  connections: number;
  warmupSec: number;
  durationSec: number;
  runs: number;
  check: CheckName;
}

const config = loaderConfig<Config>();

async function once(durationSec: number): Promise<TimedRun> {
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let done!: (r: autocannon.Result) => void;
  let failed!: (e: Error) => void;
  const finished = new Promise<autocannon.Result>((resolve, reject) => ((done = resolve), (failed = reject)));
  const instance = autocannon({
    // autocannon takes a list of URLs too (its README: "more than one url is allowed"); its types say string.
    url: config.url as string,
    method: "POST",
    headers: config.headers,
    body: config.body,
    // Each call gets its own messageId: a resend of one is answered from the hub's record of the first (§3.3.1).
    idReplacement: true,
    connections: config.connections,
    pipelining: 1,
    duration: durationSec,
    timeout: 10,
    verifyBody: (body) => checkBody(config.check, String(body ?? "")),
  }, (err, result) => (err ? failed(err) : done(result)));
  instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r = await finished;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  // requests.total counts every response, wrong ones included; only good answers count as served.
  const ok = r.requests.total - r.non2xx - r.mismatches;
  return timedRun({ ok, seconds, latencies, detail: { errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx, mismatches: r.mismatches }, cpu: process.cpuUsage(cpu0) });
}

runTimed(config, once).catch((e: unknown) => printResult({ error: e instanceof Error ? e.message : String(e) }));
