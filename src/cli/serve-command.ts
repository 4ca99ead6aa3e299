import { hubOptionsFromConfig, parseCli, startHub } from "../server/index.js";
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
  try {
    const cli = parseCli(["serve", ...argv], io.env);
    if (cli.command !== "serve") throw new Error("serve takes no subcommand");
    options = hubOptionsFromConfig(cli.config, cli.source);
  } catch (e) {
    throw new UsageError(`serve: ${(e as Error).message}`);
  }
  const hub = await startHub(options);
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
        () => resolve(EXIT.ok),
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
