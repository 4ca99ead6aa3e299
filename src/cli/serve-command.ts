import { hashToken, newToken } from "../auth/index.js";
import { hubOptionsFromConfig, parseCli, startHub } from "../server/index.js";
import { createHubLogger, startTracing } from "../telemetry/index.js";
import { UsageError, type CliIo } from "./cli-io.js";
import { EXIT } from "./exit-codes.js";

/**
 * `a2a-hub serve [--config FILE] [--port N] [--data DIR] [--host ADDR] …`:
 * the server, as `npm start` runs it (the same options and config file,
 * read by the server's own parseCli and hubOptionsFromConfig). Resolves
 * with the exit code once a signal has stopped it; a second signal ends it
 * at once.
 */
export async function serve(argv: readonly string[], io: CliIo): Promise<number> {
  let options;
  let cli;
  try {
    cli = parseCli(["serve", ...argv], io.env);
    if (cli.command !== "serve") throw new Error("serve takes no subcommand");
    options = hubOptionsFromConfig(cli.config, cli.source);
  } catch (e) {
    throw new UsageError(`serve: ${(e as Error).message}`);
  }
  if (cli.config.insecure && !["127.0.0.1", "::1", "localhost"].includes(cli.config.host)) {
    io.stderr.write(`a2a-hub: WARNING: --insecure: listening on ${cli.config.host} without TLS\n`);
  }
  if (cli.config.tenants.length === 0) io.stderr.write("a2a-hub: no tenants configured: authentication is off\n");
  // The CLI's own log: pino JSON lines on stderr (pretty on a TTY), one per request at info.
  const logger = createHubLogger({ level: cli.config.logLevel, destination: io.stderr });
  // The OTel SDK only when OTEL_* variables or the config's `tracing:` ask for it.
  const tracing = await startTracing(cli.config.tracing, io.env);
  const hub = await startHub({ ...options, logger, tracing: tracing !== undefined });
  io.stdout.write(`a2a-hub listening on ${hub.url}\n`);
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
  });
}

/** `a2a-hub hash-token`: a new random bearer token, and the SHA-256 the config file stores for it. */
export function hashTokenCommand(io: CliIo): number {
  const token = newToken();
  io.stdout.write(`token:  ${token}\nsha256: ${hashToken(token)}\n`);
  io.stdout.write("Give the token to the client; put the sha256 line in the tenant's `tokens` list.\n");
  return EXIT.ok;
}
