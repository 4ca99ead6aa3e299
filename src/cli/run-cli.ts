import { CLIENT_COMMANDS, runClientCommand } from "./client-commands.js";
import { UsageError, type CliIo } from "./cli-io.js";
import { EXIT } from "./exit-codes.js";
import { hashTokenCommand, serve } from "./serve-command.js";

/** What `a2a-hub help` prints. */
export const USAGE = `usage: a2a-hub <command> …

  serve [--config FILE] [--port N] [--data DIR] [--host ADDR] …
                        run the hub (as npm start does, same options)
  hash-token            print a new bearer token and the hash a config stores

  card <url>            show an agent's card and the interface the client picks
  send <url> [text…]    send a message (text from stdin when none is given);
                        prints the task's artifacts, its state on stderr
  stream <url> [text…]  send and stream: artifact chunks on stdout as they
                        arrive, the task and status changes on stderr
  get <url> <task-id>   show a task           list <url>   list tasks
  cancel <url> <task-id>                      subscribe <url> <task-id>

  <url> is an agent's base URL (its /.well-known/agent-card.json is read) or
  the URL of its card. Client options:
    --token T           bearer token (default: $A2A_TOKEN)
    --binding B         jsonrpc, rest or grpc (default: the card's best)
    --tenant T          tenant to address when the card names none
    --timeout MS        deadline of each call; a stream's first event (60000)
    --json              machine-readable output (NDJSON for streams)
    --verify --jwks J   refuse the card unless a signature verifies (§8.4)
                        with a key of the JWKS at URL or file J
  send/stream: --task ID --context ID --data JSON; send: --no-wait
  get: --history N; list: --context ID --status STATE --page-size N
       --page-token T --artifacts

exit codes: 0 completed (or a message, or nothing to report), 1 the request
failed, 2 usage, 3 failed, 4 canceled, 5 rejected, 6 input-required,
7 auth-required, 8 still submitted or working. cancel exits 0 once the task
is canceled.
`;

/** Runs `a2a-hub` with its arguments; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "help" || command === "--help" || command === "-h") {
      (command === undefined ? io.stderr : io.stdout).write(USAGE);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (command === "serve") return await serve(rest, io);
    if (command === "hash-token") return hashTokenCommand(io);
    if (command in CLIENT_COMMANDS) return await runClientCommand(command, rest, io);
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr.write(`a2a-hub: ${(e as Error).message}\n(a2a-hub help shows the usage)\n`);
      return EXIT.usage;
    }
    io.stderr.write(`a2a-hub: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.error;
  }
}
