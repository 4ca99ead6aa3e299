import { hashToken, newToken } from "../auth/index.js";
import { accessPolicyOf, hubOptionsFromConfig, startHub, type Hub } from "../server/index.js";
import { hostHeaderWarning, isLoopbackHost, parseCli, SERVE_OPTIONS } from "./cli-options.js";
import { createHubLogger, startTracing } from "../telemetry/index.js";
import type { CliIo } from "./cli-io.js";
import { EXIT } from "./exit-codes.js";
import { HASH_TOKEN_USAGE, serveUsage } from "./usage-text.js";
import { packageVersion } from "./version.js";

/**
 * `a2a-hub serve [options]` and `a2a-hub hash-token`, as `npm start` runs
 * them (the same options and config file, read by the server's own
 * parseCli and hubOptionsFromConfig). `--help` and `--version` print and
 * exit. Serving resolves with the exit code once a signal has stopped it;
 * a second signal ends it at once. Bad options and config throw, for
 * runCli to report.
 */
export async function serve(argv: readonly string[], io: CliIo): Promise<number> {
  const cli = parseCli(["serve", ...argv], io.env);
  if (cli.command === "help") return print(io, serveUsage(SERVE_OPTIONS));
  if (cli.command === "version") return print(io, `a2a-hub ${packageVersion()}\n`);
  if (cli.command !== "serve") throw new Error(`unexpected ${cli.command}`);
  const options = hubOptionsFromConfig(cli.config, cli.source);
  const { host, insecure, tls, tenants } = cli.config;
  if (insecure && !isLoopbackHost(host)) {
    const without = [tls ? undefined : "TLS", tenants.length > 0 ? undefined : "authentication"].filter(Boolean).join(" or ");
    if (without) io.stderr.write(`a2a-hub: WARNING: --insecure: listening on ${host} without ${without}\n`);
  }
  const hostWarning = hostHeaderWarning(cli.config);
  if (hostWarning) io.stderr.write(`a2a-hub: WARNING: ${hostWarning}\n`);
  if (tenants.length === 0) io.stderr.write("a2a-hub: no tenants configured: authentication is off\n");
  for (const warning of cli.config.auth?.warnings ?? []) io.stderr.write(`a2a-hub: WARNING: ${warning}\n`);
  // The CLI's own log: pino JSON lines on stderr (pretty on a TTY), one per request at info.
  const logger = createHubLogger({ level: cli.config.logLevel, destination: io.stderr });
  // The OTel SDK only when OTEL_* variables or the config's `tracing:` ask for it.
  const tracing = await startTracing(cli.config.tracing, io.env, (message, fields) => logger.warn(message, fields));
  const hub = await startHub({ ...options, logger, tracing: tracing !== undefined });
  io.stdout.write(`a2a-hub listening on ${hub.url}\n`);
  // A metrics port of its own (0 picks one) is said too: a scraper has no other way to learn it.
  if (hub.metricsUrl) io.stdout.write(`a2a-hub metrics on ${hub.metricsUrl}metrics\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        io.stderr.write(`a2a-hub: second ${signal}, exiting now\n`);
        resolve(EXIT.error);
        return;
      }
      stopping = true;
      io.stderr.write(`a2a-hub: ${signal}, stopping\n`);
      hub.close().then(
        async () => {
          await tracing?.shutdown().catch(() => {});
          resolve(EXIT.ok);
        },
        (e: unknown) => {
          io.stderr.write(`a2a-hub: stop failed: ${String(e)}\n`);
          resolve(EXIT.error);
        },
      );
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGHUP", () => reload(hub, argv, io));
  });
}

/**
 * SIGHUP: reads the configuration again (the same file, flags and
 * variables) and takes its access settings: tenants, static tokens, JWT
 * issuers, client certificates, scopes, agents' tenants and required
 * scopes. Requests and streams already admitted go on; the next request
 * meets the new settings. A configuration with a problem is refused with
 * the reason, and the one in force stays.
 */
function reload(hub: Hub, argv: readonly string[], io: CliIo): void {
  try {
    const cli = parseCli(["serve", ...argv], io.env);
    if (cli.command !== "serve") return;
    hub.reloadAccess(accessPolicyOf(cli.config));
    for (const warning of cli.config.auth?.warnings ?? []) io.stderr.write(`a2a-hub: WARNING: ${warning}\n`);
    io.stderr.write(`a2a-hub: SIGHUP: access settings reloaded (${cli.config.tenants.length} tenants, ${cli.config.auth?.jwt.length ?? 0} issuers); other settings take a restart\n`);
  } catch (e) {
    io.stderr.write(`a2a-hub: SIGHUP: reload refused, the settings in force stay: ${e instanceof Error ? e.message : String(e)}\n`);
  }
}

/** `a2a-hub hash-token`: a new random bearer token, and the SHA-256 the config file stores for it. */
export function hashTokenCommand(argv: readonly string[], io: CliIo): number {
  const cli = parseCli(["hash-token", ...argv], io.env);
  if (cli.command === "help") return print(io, HASH_TOKEN_USAGE);
  if (cli.command === "version") return print(io, `a2a-hub ${packageVersion()}\n`);
  const token = newToken();
  io.stdout.write(`token:  ${token}\nsha256: ${hashToken(token)}\n`);
  io.stdout.write("Give the token to the client; put the sha256 line in the tenant's `tokens` list.\n");
  return EXIT.ok;
}

function print(io: CliIo, text: string): number {
  io.stdout.write(text);
  return EXIT.ok;
}
