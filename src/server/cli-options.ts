import { parseArgs } from "node:util";
import { buildConfig, ConfigError, readConfigFile, type ConfigSource, type HubConfig } from "./config/index.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** What `npm start -- ...` asks for: serve with a configuration, or print a new token and its hash. */
export type CliCommand =
  | { readonly command: "serve"; readonly config: HubConfig; readonly source?: ConfigSource }
  | { readonly command: "hash-token" };

/**
 * Reads `[hash-token] [--config file] [--port n] [--data dir] [--host addr]
 * [--public-url url] [--insecure] [--push-allow-private] [--push-allow-cidr c]
 * [--log-level level] [--metrics-port n]`.
 * Flags win over A2A_HUB_* variables, which win over the file. Throws a
 * ConfigError naming the bad option.
 */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      config: { type: "string" },
      port: { type: "string" },
      data: { type: "string" },
      host: { type: "string" },
      "public-url": { type: "string" },
      insecure: { type: "boolean" },
      "push-allow-private": { type: "boolean" },
      "push-allow-cidr": { type: "string", multiple: true },
      "log-level": { type: "string" },
      "metrics-port": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals[0] === "hash-token") return { command: "hash-token" };
  if (positionals.length > 0 && positionals[0] !== "serve") throw new ConfigError("command", `unknown command ${positionals[0]} (expected serve or hash-token)`);
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new ConfigError("--port", `expected 0..65535, got ${JSON.stringify(values.port)}`);
  }
  let metricsPort: number | undefined;
  if (values["metrics-port"] !== undefined) {
    metricsPort = Number(values["metrics-port"]);
    if (!/^\d+$/.test(values["metrics-port"]) || metricsPort > 65535) throw new ConfigError("--metrics-port", `expected 0..65535, got ${JSON.stringify(values["metrics-port"])}`);
  }
  const file = values.config ?? env.A2A_HUB_CONFIG;
  const source = file ? readConfigFile(file) : undefined;
  const config = buildConfig(source, env, {
    port,
    host: values.host,
    dataDir: values.data,
    publicUrl: values["public-url"],
    insecure: values.insecure,
    pushAllowPrivate: values["push-allow-private"],
    pushAllowCidrs: values["push-allow-cidr"],
    logLevel: values["log-level"],
    metricsPort,
  });
  // Without authentication and TLS, only this machine may talk to the hub unless the operator insists.
  if (!LOOPBACK.has(config.host) && !config.insecure) {
    throw new ConfigError("--host", `refusing to bind ${config.host}, which is not loopback, without --insecure`);
  }
  return { command: "serve", config, source };
}

