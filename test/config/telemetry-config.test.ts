import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { parseCli } from "../../src/cli/index.js";
import { buildConfig, ConfigError, hubOptionsFromConfig, readConfigFile } from "../../src/server/index.js";
import { tracingRequested } from "../../src/telemetry/index.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-hub-telemetry-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function source(text: string) {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return readConfigFile(file);
}

function keyOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.key;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

describe("telemetry configuration", () => {
  it("reads metrics, tracing, logLevel and readinessDrainMs from the file, the environment and flags", () => {
    const hash = hashToken("scrape");
    const src = source(
      `logLevel: debug\nreadinessDrainMs: 3000\nmetrics: { tenantLabel: true, tokenHash: ${hash}, port: 9464 }\ntracing: { endpoint: "http://127.0.0.1:4318/v1/traces", sampleRatio: 0.25, serviceName: hub-a }\n`,
    );
    const cfg = buildConfig(src, {});
    expect(cfg).toMatchObject({
      logLevel: "debug",
      readinessDrainMs: 3000,
      metrics: { enabled: true, tenantLabel: true, tokenHash: hash, port: 9464 },
      tracing: { endpoint: "http://127.0.0.1:4318/v1/traces", sampleRatio: 0.25, serviceName: "hub-a" },
    });
    expect(hubOptionsFromConfig(cfg)).toMatchObject({ readinessDrainMs: 3000, metrics: { tenantLabel: true, tokenHash: hash, port: 9464 } });
    expect(buildConfig(src, { A2A_HUB_METRICS_PORT: "9000", A2A_HUB_LOG_LEVEL: "error" })).toMatchObject({ logLevel: "error", metrics: { port: 9000 } });
    expect(buildConfig(src, { A2A_HUB_METRICS: "0" }).metrics.enabled).toBe(false);
    expect(hubOptionsFromConfig(buildConfig(src, { A2A_HUB_METRICS: "0" })).metrics).toBe(false);
    const cli = parseCli(["--metrics-port", "9100", "--log-level", "warn"], {});
    expect(cli.command === "serve" && cli.config).toMatchObject({ logLevel: "warn", metrics: { port: 9100 } });
  });

  it("names the bad key of a wrong telemetry setting", () => {
    expect(keyOf(() => buildConfig(source("metrics: { tokenHash: plain-token }\n"), {}))).toBe("metrics.tokenHash");
    expect(keyOf(() => buildConfig(source("metrics: { scrape: yes }\n"), {}))).toBe("metrics.scrape");
    expect(keyOf(() => buildConfig(source("tracing: { sampleRatio: 2 }\n"), {}))).toBe("tracing.sampleRatio");
    expect(keyOf(() => buildConfig(source("tracing: { endpoint: collector:4318 }\n"), {}))).toBe("tracing.endpoint");
    expect(keyOf(() => buildConfig(source("logLevel: loud\n"), {}))).toBe("logLevel");
    expect(keyOf(() => parseCli(["--metrics-port", "x"], {}))).toBe("--metrics-port");
  });

  it("starts the OTel SDK only when OTEL_* variables or the config ask, and never when disabled", () => {
    expect(tracingRequested(undefined, {})).toBe(false);
    expect(tracingRequested({ sampleRatio: 1 }, {})).toBe(false);
    expect(tracingRequested({ endpoint: "http://c:4318/v1/traces" }, {})).toBe(true);
    expect(tracingRequested(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(true);
    expect(tracingRequested(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" })).toBe(true);
    expect(tracingRequested(undefined, { OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracingRequested({ endpoint: "http://c:4318/v1/traces" }, { OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(tracingRequested(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });
});
