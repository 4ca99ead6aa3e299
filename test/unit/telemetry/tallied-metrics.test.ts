import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { TalliedCounter } from "../../../src/telemetry/metrics/tallied-counter.js";
import { TalliedHistogram } from "../../../src/telemetry/metrics/tallied-histogram.js";

// The hub's per-request metrics skip prom-client's per-call label work
// (src/telemetry/metrics/tallied-*.ts); Prometheus, the README's metric list and
// the Grafana dashboard must not see a difference. Same observations into
// prom-client's own Counter and Histogram and into the tallied ones: the
// two registries must expose the same text.
describe("tallied metrics", () => {
  it("expose exactly what prom-client's Counter and Histogram expose for the same observations", async () => {
    const buckets = [0.0005, 0.001, 0.0025, 0.01, 1, 2.5, 30];
    const theirs = new Registry();
    const ours = new Registry();
    const h = new Histogram({ name: "x_seconds", help: "latency", labelNames: ["binding", "outcome"], buckets, registers: [theirs] });
    const th = new TalliedHistogram({ name: "x_seconds", help: "latency", labelNames: ["binding", "outcome"], buckets, registers: [ours] });
    const u = new Histogram({ name: "y_writes", help: "writes", buckets: [1, 2, 3], registers: [theirs] });
    const tu = new TalliedHistogram({ name: "y_writes", help: "writes", buckets: [1, 2, 3], registers: [ours] });
    const c = new Counter({ name: "z_total", help: "count", labelNames: ["agent"], registers: [theirs] });
    const tc = new TalliedCounter({ name: "z_total", help: "count", labelNames: ["agent"], registers: [ours] });

    // Bucket edges, below the first bound, past the last, and label values that need escaping.
    for (const v of [0, 0.0005, 0.0007, 0.001, 0.3, 2.5, 31]) {
      h.observe({ binding: "grpc", outcome: "ok" }, v);
      th.series({ binding: "grpc", outcome: "ok" }).observe(v);
    }
    h.observe({ binding: 'a"b\\c', outcome: "Task\nNotFound" }, 0.01);
    // A name that is not a label (tenant, when not configured) is ignored.
    th.series({ binding: 'a"b\\c', outcome: "Task\nNotFound", tenant: "t1" }).observe(0.01);
    // A series asked for but never observed stays out, as in prom-client.
    th.series({ binding: "rest", outcome: "ok" });
    for (const v of [2, 3.5]) {
      u.observe(v);
      tu.observe(v);
    }
    c.inc({ agent: "echo" }, 3);
    tc.tally({ agent: "echo", tenant: "t1" }).n += 3;

    expect(await ours.metrics()).toBe(await theirs.metrics());
    // Folded at the first scrape, then counted on from there.
    c.inc({ agent: "echo" });
    tc.tally({ agent: "echo" }).n++;
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
