import { Counter, type Registry } from "prom-client";

/** What one series counted since the last scrape; the hot path only adds to `n`. */
export interface Tally {
  n: number;
}

/** How a tallied counter is named, as prom-client's Counter config. */
export interface TalliedCounterConfig<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly registers: Registry[];
}

/**
 * A Prometheus counter fed by plain numbers. prom-client's `inc` checks and
 * hashes the label set on every call, a `labels()` child included; counts
 * taken per stream event or per task need none of that until somebody
 * reads them. So the hot path adds to a Tally (a field increment) and the
 * tallies are folded into the counter when Prometheus scrapes (prom-client
 * calls `collect` before it reads a metric): the exposition is exact at
 * every scrape, and nothing else reads the counter.
 */
export class TalliedCounter<L extends string> {
  readonly counter: Counter<L>;
  private readonly series = new Map<string, { readonly labels: Partial<Record<L, string>>; readonly tally: Tally }>();

  constructor(private readonly config: TalliedCounterConfig<L>) {
    const self = this;
    this.counter = new Counter<L>({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames,
      registers: config.registers,
      collect() {
        self.fold();
      },
    });
  }

  /**
   * The tally of one label set, made on first use; values of names that
   * are not labels of this counter are ignored (tenant, when it is not a
   * label). A caller that meets the same labels again may keep the tally
   * and skip even this lookup.
   */
  tally(values: Readonly<Partial<Record<string, string>>>): Tally {
    let key = "";
    for (const name of this.config.labelNames) key += `${values[name] ?? ""}\u0000`;
    let s = this.series.get(key);
    if (!s) {
      const labels: Partial<Record<L, string>> = {};
      for (const name of this.config.labelNames) labels[name] = values[name] ?? "";
      s = { labels, tally: { n: 0 } };
      this.series.set(key, s);
    }
    return s.tally;
  }

  /** Moves what the tallies hold into the counter. */
  private fold(): void {
    for (const { labels, tally } of this.series.values()) {
      if (tally.n === 0) continue;
      this.counter.inc(labels, tally.n);
      tally.n = 0;
    }
  }
}
