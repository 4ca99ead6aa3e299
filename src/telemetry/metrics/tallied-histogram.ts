import type { Registry } from "prom-client";

/** One label set's observations: a count per bucket, their sum and their number. */
export class HistogramSeries {
  /** Observations per bucket (not cumulative): counts[i] holds those in (bounds[i-1], bounds[i]]. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: Float64Array,
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  /** Records one value: a short scan of the bounds and three additions, nothing allocated. */
  observe(value: number): void {
    // prom-client throws on these; a latency or a count is never one, and a metric must not fail a request.
    if (!Number.isFinite(value)) return;
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    if (i < b.length) this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** How a tallied histogram is named and bucketed, as prom-client's Histogram config. */
export interface TalliedHistogramConfig {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
  /** Upper bounds, ascending; +Inf is implied. */
  readonly buckets: readonly number[];
  readonly registers: Registry[];
}

/** One line of the exposition as prom-client's registry formats it. */
interface ExportValue {
  readonly value: number;
  readonly labels: Record<string, string | number>;
  readonly sharedLabels?: Readonly<Record<string, string>>;
  readonly metricName: string;
  readonly exemplar?: null;
}

/**
 * A Prometheus histogram whose hot path costs a few additions. prom-client's
 * `observe`, a `labels()` child's too, allocates, checks and hashes the
 * label set and indexes its buckets by number-as-string key on every
 * observation; the hub observes several per request (request latency,
 * unit-of-work latency and writes). Here a caller keeps its series (see
 * `series`) and observes into typed arrays; the buckets are made
 * cumulative only when Prometheus scrapes. It registers in a prom-client
 * Registry as a metric of its own (the registry needs only `name` and
 * `get`), and hands the registry the same lines, in the same order and
 * form, as prom-client's Histogram would, so the exposition is unchanged.
 */
export class TalliedHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly labelNames: readonly string[];
  private readonly bounds: Float64Array;
  private readonly all = new Map<string, HistogramSeries>();
  /** The series of a histogram without labels. */
  private readonly unlabelled: HistogramSeries | undefined;

  constructor(config: TalliedHistogramConfig) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames ?? [];
    this.bounds = Float64Array.from(config.buckets);
    // Like prom-client: a histogram without labels shows zeros before its first observation.
    if (this.labelNames.length === 0) this.unlabelled = this.series({});
    // A custom metric: prom-client's registry calls only name, get/getForPromString and reset.
    for (const r of config.registers) r.registerMetric(this as never);
  }

  /**
   * The series of one label set, made on first use; names that are not
   * labels of this histogram are ignored (tenant, when it is not a label).
   * Callers keep it and observe into it.
   */
  series(values: Readonly<Partial<Record<string, string>>>): HistogramSeries {
    let key = "";
    for (const name of this.labelNames) key += `${values[name] ?? ""}\u0000`;
    let s = this.all.get(key);
    if (!s) {
      const labels: Record<string, string> = {};
      for (const name of this.labelNames) labels[name] = values[name] ?? "";
      s = new HistogramSeries(this.bounds, labels);
      this.all.set(key, s);
    }
    return s;
  }

  /** Observes into the series of a histogram without labels. */
  observe(value: number): void {
    this.unlabelled!.observe(value);
  }

  /** Series labelled with a label set show once they have an observation, as in prom-client. */
  private shown(): HistogramSeries[] {
    return [...this.all.values()].filter((s) => s.count > 0 || s === this.unlabelled);
  }

  /** What the registry formats: per series the cumulative buckets, +Inf, the sum and the count; series labels kept apart, so `le` is written first. */
  async getForPromString(): Promise<{ name: string; help: string; type: string; values: ExportValue[]; aggregator: string }> {
    const values: ExportValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.shown()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ value: cumulative, labels: { le }, sharedLabels: s.labels, metricName: bucket, exemplar: null });
      });
      values.push({ value: s.count, labels: { le: "+Inf" }, sharedLabels: s.labels, metricName: bucket, exemplar: null });
      values.push({ value: s.sum, labels: {}, sharedLabels: s.labels, metricName: `${this.name}_sum` });
      values.push({ value: s.count, labels: {}, sharedLabels: s.labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The same with the series labels merged into each line's (getMetricsAsJSON). */
  async get(): Promise<{ name: string; help: string; type: string; values: ExportValue[]; aggregator: string }> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } })) };
  }

  /** Forgets every observation (Registry.resetMetrics). */
  reset(): void {
    for (const s of this.all.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
