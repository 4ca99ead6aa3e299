import { ConfigError } from "../server/index.js";
import { ArgumentError, didYouMean } from "./cli-args.js";
import { SERVE_OPTIONS } from "./cli-options.js";
import { CLIENT_COMMANDS, clientUsage, runClientCommand } from "./client-commands.js";
import { UsageError, type CliIo } from "./cli-io.js";
import { DATA_COMMANDS, runDataCommand } from "./data-commands.js";
import { EXIT } from "./exit-codes.js";
import { MCP_USAGE, mcpCommand } from "./mcp-command.js";
import { hashTokenCommand, serve } from "./serve-command.js";
import { HASH_TOKEN_USAGE, serveUsage } from "./usage-text.js";
import { packageVersion } from "./version.js";

/** What `a2a-hub`, `a2a-hub help` and `a2a-hub --help` print. */
export const USAGE = `usage: a2a-hub <command> [options]      a2a-hub <command> --help for its options

  serve [--config FILE] [--port N] [--data DIR] [--host ADDR] …
                        run the hub (as npm start does, same options)
  hash-token            print a new bearer token and the hash a config stores
  backup --data DIR --out FILE
                        copy a data directory's database while a hub serves
  restore --from FILE --data DIR [--force]
                        put a verified backup in place (no hub may hold DIR)
  migrate --from DIR --to postgres://… [--merge]
                        copy a stopped SQLite hub into PostgreSQL, verified
  mcp --url <url>       serve a hub's or agent's agents as MCP tools over stdio

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
    --cacert FILE       also trust the CA certificates (PEM) in FILE
  send/stream: --task ID --context ID --data JSON; send: --no-wait
  get: --history N; list: --context ID --status STATE --page-size N
       --page-token T --artifacts

  --help, -h            this usage; --version  the version

exit codes: 0 completed (or a message, or nothing to report), 1 the request
failed, 2 usage or configuration, 3 failed, 4 canceled, 5 rejected,
6 input-required, 7 auth-required, 8 still submitted or working. cancel
exits 0 once the task is canceled.
`;

const COMMANDS = ["serve", "hash-token", ...Object.keys(DATA_COMMANDS), "mcp", ...Object.keys(CLIENT_COMMANDS)];

/**
 * Runs `a2a-hub` with its arguments; resolves with the exit code. With no
 * arguments it prints the usage. Errors in the command line end with a
 * pointer to the command's --help; errors in a config file, which name the
 * file, line and key, do not.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h") return print(io, USAGE);
    if (command === "help") return print(io, usageOf(rest));
    if (command === "--version") return print(io, `a2a-hub ${packageVersion()}\n`);
    if (command === "serve") return await serve(rest, io);
    if (command === "hash-token") return hashTokenCommand(rest, io);
    if (Object.hasOwn(DATA_COMMANDS, command)) return await runDataCommand(command as keyof typeof DATA_COMMANDS, rest, io);
    if (command === "mcp") return await mcpCommand(rest, io);
    if (Object.hasOwn(CLIENT_COMMANDS, command)) return await runClientCommand(command, rest, io);
    if (command.startsWith("-")) throw new UsageError(`unknown option ${command} (options go after the command: a2a-hub <command> ${command})`);
    throw new UsageError(`unknown command ${JSON.stringify(command)}${didYouMean(command, COMMANDS) || ` (commands: ${COMMANDS.join(", ")})`}`);
  } catch (e) {
    const name = command !== undefined && COMMANDS.includes(command) ? command : undefined;
    if (e instanceof UsageError || e instanceof ArgumentError || (e instanceof ConfigError && e.key.startsWith("--") && !e.where)) {
      io.stderr.write(`a2a-hub: ${e.message}\n(a2a-hub ${name ? `${name} ` : ""}--help shows the usage)\n`);
      return EXIT.usage;
    }
    if (e instanceof ConfigError) {
      io.stderr.write(`a2a-hub: ${e.message}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`a2a-hub: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.error;
  }
}

/** `a2a-hub help [command]`. */
function usageOf(args: readonly string[]): string {
  const [of, ...extra] = args;
  if (extra.length > 0) throw new UsageError(`help: unexpected argument ${JSON.stringify(extra[0])}`);
  if (of === undefined) return USAGE;
  if (of === "serve") return serveUsage(SERVE_OPTIONS);
  if (of === "hash-token") return HASH_TOKEN_USAGE;
  if (Object.hasOwn(DATA_COMMANDS, of)) return DATA_COMMANDS[of as keyof typeof DATA_COMMANDS];
  if (of === "mcp") return MCP_USAGE;
  if (Object.hasOwn(CLIENT_COMMANDS, of)) return clientUsage(of);
  throw new UsageError(`help: unknown command ${JSON.stringify(of)} (commands: ${COMMANDS.join(", ")})`);
}

function print(io: CliIo, text: string): number {
  io.stdout.write(text);
  return EXIT.ok;
}
