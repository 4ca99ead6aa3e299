import { ArgumentError, parseArguments, type OptionDoc } from "./cli-args.js";
import { buildConfig, ConfigError, DEFAULT_CONFIG, readConfigFile, type ConfigSource, type HubConfig } from "../server/index.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Whether a bind address reaches only this machine. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** What `npm start -- ...` asks for: serve with a configuration, print a new token and its hash, or show the usage or version. */
export type CliCommand =
  | { readonly command: "serve"; readonly config: HubConfig; readonly source?: ConfigSource }
  | { readonly command: "hash-token" }
  | { readonly command: "help"; readonly of: "serve" | "hash-token" }
  | { readonly command: "version" };

/**
 * The options of `a2a-hub serve` (and `npm start`), each with its variable
 * and config key: what parseCli reads and what `--help` prints.
 */
export const SERVE_OPTIONS: readonly OptionDoc[] = [
  { name: "config", value: "FILE", env: "A2A_HUB_CONFIG", help: "JSON or YAML configuration file (tenants, agents, limits…)" },
  { name: "host", value: "ADDR", env: "A2A_HUB_HOST", config: "listen.host", help: `address to bind (${DEFAULT_CONFIG.host}); a non-loopback one needs TLS and tenants, or --insecure` },
  { name: "port", value: "N", env: "A2A_HUB_PORT", config: "listen.port", help: `TCP port, 0 for any free one (${DEFAULT_CONFIG.port})` },
  { name: "data", value: "DIR", env: "A2A_HUB_DATA", config: "dataDir", help: `directory of the SQLite database (./${DEFAULT_CONFIG.dataDir})` },
  {
    name: "store",
    value: "URL",
    env: "A2A_HUB_STORE",
    config: "store.url (and store.poolSize)",
    help: "keep tasks in PostgreSQL at this postgres://user:password@host:port/database instead of SQLite (--data is then unused)",
  },
  { name: "public-url", value: "URL", env: "A2A_HUB_PUBLIC_URL", config: "publicUrl", help: "base URL clients reach the hub at, for the agent cards (default: each request's Host)" },
  { name: "tls-cert", value: "FILE", env: "A2A_HUB_TLS_CERT", config: "tls.cert", help: "serve HTTPS (HTTP/2 by ALPN, HTTP/1.1 fallback) with this PEM certificate chain; needs --tls-key" },
  { name: "tls-key", value: "FILE", env: "A2A_HUB_TLS_KEY", config: "tls.key", help: "the PEM private key of --tls-cert" },
  {
    name: "trusted-proxy",
    value: "ADDR",
    multiple: true,
    env: "A2A_HUB_TRUSTED_PROXIES (comma-separated)",
    config: "trustedProxies",
    help: "believe X-Forwarded-Proto/Host and Forwarded from this IP, CIDR range or `loopback`; repeatable",
  },
  { name: "insecure", env: "A2A_HUB_INSECURE=1", config: "insecure", help: "allow a non-loopback address without TLS, or without tenants (no authentication)" },
  { name: "push-allow-private", env: "A2A_HUB_PUSH_ALLOW_PRIVATE=1", config: "push.allowPrivateNetworks", help: "let push notifications go to private and loopback addresses" },
  {
    name: "push-allow-cidr",
    value: "CIDR",
    multiple: true,
    env: "A2A_HUB_PUSH_ALLOW_CIDRS (comma-separated)",
    config: "push.allowCidrs",
    help: "let push notifications go to this private range; repeatable",
  },
  { name: "log-level", value: "LEVEL", env: "A2A_HUB_LOG_LEVEL", config: "logLevel", help: "lowest level logged: trace, debug, info (one line per request), warn, error, fatal, silent (info)" },
  {
    name: "terminal-after",
    value: "DUR",
    env: "A2A_HUB_RETENTION_TERMINAL_AFTER",
    config: "retention.terminalAfter",
    help: "delete tasks this long after they ended (500ms, 1s, 15m, 30d); default: kept; tenants[] and agents[] may set their own",
  },
  {
    name: "interrupted-after",
    value: "DUR",
    env: "A2A_HUB_RETENTION_INTERRUPTED_AFTER",
    config: "retention.interruptedAfter",
    help: "delete input-required and auth-required tasks untouched this long; default: kept",
  },
  { name: "metrics-port", value: "N", env: "A2A_HUB_METRICS_PORT", config: "metrics.port", help: "also serve /metrics, /healthz and /readyz on this port" },
];

/**
 * Reads `[serve | hash-token] [options]` (SERVE_OPTIONS, plus --help/-h and
 * --version). Flags win over A2A_HUB_* variables, which win over the file.
 * A stray or unknown argument is an ArgumentError naming it; a bad value a
 * ConfigError naming the flag, variable or file key (and its line).
 */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliCommand {
  const command = argv[0] === "hash-token" ? "hash-token" : "serve";
  const rest = argv[0] === "hash-token" || argv[0] === "serve" ? argv.slice(1) : argv;
  const { values, positionals } = parseArguments(command, rest, command === "serve" ? SERVE_OPTIONS : []);
  if (values.help) return { command: "help", of: command };
  if (values.version) return { command: "version" };
  if (positionals.length > 0) throw new ArgumentError(`${command}: unexpected argument ${JSON.stringify(positionals[0])}`);
  if (command === "hash-token") return { command };
  const flag = (name: string): string | undefined => values[name] as string | undefined;
  let port: number | undefined;
  const portText = flag("port");
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65535) throw new ConfigError("--port", `expected 0..65535, got ${JSON.stringify(portText)}`);
  }
  let metricsPort: number | undefined;
  const metricsPortText = flag("metrics-port");
  if (metricsPortText !== undefined) {
    metricsPort = Number(metricsPortText);
    if (!/^\d+$/.test(metricsPortText) || metricsPort > 65535) throw new ConfigError("--metrics-port", `expected 0..65535, got ${JSON.stringify(metricsPortText)}`);
  }
  const file = flag("config") ?? (env.A2A_HUB_CONFIG || undefined);
  const source = file ? readConfigFile(file) : undefined;
  const config = buildConfig(source, env, {
    port,
    host: flag("host"),
    dataDir: flag("data"),
    storeUrl: flag("store"),
    publicUrl: flag("public-url"),
    insecure: values.insecure as boolean | undefined,
    pushAllowPrivate: values["push-allow-private"] as boolean | undefined,
    pushAllowCidrs: values["push-allow-cidr"] as string[] | undefined,
    tlsCert: flag("tls-cert"),
    tlsKey: flag("tls-key"),
    trustedProxies: values["trusted-proxy"] as string[] | undefined,
    logLevel: flag("log-level"),
    metricsPort,
    retentionTerminalAfter: flag("terminal-after"),
    retentionInterruptedAfter: flag("interrupted-after"),
  });
  // Off this machine, tokens need TLS to stay secret and the hub needs tenants to ask for them.
  const missing = [config.tls ? undefined : "TLS (--tls-cert and --tls-key)", config.tenants.length > 0 ? undefined : "tenants (authentication is off)"].filter((m) => m);
  if (!isLoopbackHost(config.host) && missing.length > 0 && !config.insecure) {
    throw new ConfigError(
      "--host",
      `refusing to bind ${config.host}, which is not loopback, without ${missing.join(" and without ")}: off this machine tokens need TLS and the hub needs tenants to ask for them; configure both, or pass --insecure`,
    );
  }
  return { command: "serve", config, source };
}

/** Why the hub says so at start, or undefined: binding off loopback without a publicUrl. */
export function hostHeaderWarning(config: HubConfig): string | undefined {
  if (isLoopbackHost(config.host) || config.publicUrl) return undefined;
  if (config.trustedProxies.length > 0) {
    return (
      `listening on ${config.host} without a publicUrl: agent cards will take their URLs from X-Forwarded-* of the trusted proxies, ` +
      `and from the Host header of any client that reaches the hub directly, which that client controls. Set --public-url to fix them.`
    );
  }
  return (
    `listening on ${config.host} without a publicUrl: agent cards will take their URLs from each request's Host header, ` +
    `which any client (or a proxy) controls. Set --public-url, or --trusted-proxy for the proxy in front of the hub.`
  );
}
