/**
 * `npm start -- --port <n> --data <dir>`: serves the echo agent on one port
 * and prints the URL. SIGINT/SIGTERM stop it gracefully; a second signal
 * forces the exit.
 */
import { parseCliOptions, startHub } from "./server/index.js";

async function main(): Promise<void> {
  let options;
  try {
    options = parseCliOptions(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`a2a-hub: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const hub = await startHub({ port: options.port, host: options.host, dataDir: options.dataDir, publicBaseUrl: options.publicBaseUrl, push: options.push });
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
