/**
 * `npm start -- --port <n> --data <dir> [--config file]`: serves the
 * configured agents (one echo agent without a config) on one port and prints
 * the URL. `npm start -- hash-token` prints a new bearer token and the hash
 * the config file stores. SIGINT/SIGTERM stop gracefully; a second signal
 * forces the exit.
 */
import { hashToken, newToken } from "./auth/index.js";
import { hubOptionsFromConfig, parseCli, startHub } from "./server/index.js";

async function main(): Promise<void> {
  let cli;
  let options;
  try {
    cli = parseCli(process.argv.slice(2));
    if (cli.command === "hash-token") {
      const token = newToken();
      process.stdout.write(`token:  ${token}\nsha256: ${hashToken(token)}\n`);
      process.stdout.write("Give the token to the client; put the sha256 line in the tenant's `tokens` list.\n");
      return;
    }
    options = hubOptionsFromConfig(cli.config, cli.source);
  } catch (e) {
    process.stderr.write(`a2a-hub: ${(e as Error).message}\n`);
    process.exit(2);
  }
  if (cli.config.insecure && !["127.0.0.1", "::1", "localhost"].includes(cli.config.host)) {
    process.stderr.write(`a2a-hub: WARNING: --insecure: listening on ${cli.config.host} without TLS\n`);
  }
  if (cli.config.tenants.length === 0) process.stderr.write("a2a-hub: no tenants configured: authentication is off\n");
  const hub = await startHub(options);
  process.stdout.write(`a2a-hub listening on ${hub.url}\n`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write(`a2a-hub: second ${signal}, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`a2a-hub: ${signal}, stopping\n`);
    hub.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`a2a-hub: stop failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((e: unknown) => {
  process.stderr.write(`a2a-hub: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
