/** Where a failed export is told: the CLI's logger, at warn. */
export type ExportFailureReport = (message: string, fields: Record<string, unknown>) => void;

/** The quietest the reports of a collector that stays unreachable get: one line a minute, with the count since the last. */
export const EXPORT_FAILURE_REPORT_MS = 60_000;

/**
 * Says that span exports to `endpoint` fail: the first failure at once, with
 * the endpoint and the error; after that at most once per `intervalMs`, with
 * how many failed meanwhile, so a collector that is down neither goes
 * unnoticed nor floods the log. A success after failures is said once too.
 */
export function exportFailureReporter(endpoint: string, report: ExportFailureReport, intervalMs = EXPORT_FAILURE_REPORT_MS, now: () => number = Date.now) {
  let lastReport = -Infinity;
  let unreported = 0;
  let failing = false;
  return {
    failed(error: unknown): void {
      failing = true;
      unreported++;
      const t = now();
      if (t - lastReport < intervalMs) return;
      lastReport = t;
      report("trace export failed: spans are being dropped", { endpoint, error: error instanceof Error ? error.message : String(error ?? "unknown error"), failures: unreported });
      unreported = 0;
    },
    succeeded(): void {
      if (!failing) return;
      failing = false;
      report("trace export works again", { endpoint, failuresSinceLastReport: unreported });
      unreported = 0;
      lastReport = -Infinity;
    },
  };
}
