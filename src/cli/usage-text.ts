import { LIMIT_KEYS, limitEnvName } from "../server/index.js";
import { STANDARD_OPTIONS, type OptionDoc } from "./cli-args.js";

const WIDTH = 80;
const HELP_COLUMN = 26;

/** `text` wrapped at word boundaries to lines of at most `width`, every line after the first indented by `indent`. */
export function wrap(text: string, width = WIDTH, indent = 0): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const room = width - (lines.length === 0 ? 0 : indent);
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}

/**
 * The options block of a command's `--help`: each option, what it does,
 * and the environment variable and config key that set the same thing.
 */
export function optionLines(docs: readonly OptionDoc[]): string {
  return [...docs, ...STANDARD_OPTIONS]
    .map((d) => {
      const head = `  --${d.name}${d.value ? ` ${d.value}` : ""}`;
      const pad = `\n${" ".repeat(HELP_COLUMN)}`;
      const where = [d.env && `env ${d.env}`, d.config && `config ${d.config}`].filter(Boolean).join(", ");
      const text = (t: string): string => wrap(t, WIDTH - HELP_COLUMN).replaceAll("\n", pad);
      return `${head.padEnd(HELP_COLUMN)}${head.length >= HELP_COLUMN ? pad : ""}${text(d.help)}${where ? `${pad}${text(where)}` : ""}\n`;
    })
    .join("");
}

/** Settings with no flag, for `serve --help`. */
function environmentOnly(): string {
  const rows: Array<[string, string]> = [
    ["A2A_HUB_PUSH_RETRY_BASE_MS", "push.retry.baseMs"],
    ["A2A_HUB_PUSH_RETRY_CAP_MS", "push.retry.capMs"],
    ["A2A_HUB_PUSH_ATTEMPTS", "push.retry.attempts"],
    ["A2A_HUB_PUSH_TIMEOUT_MS", "push.timeoutMs"],
    ["A2A_HUB_RATE_BURST", "rateLimit.burst"],
    ["A2A_HUB_RATE_PER_SECOND", "rateLimit.perSecond"],
    ["A2A_HUB_REMOTE_REGISTRY", "remoteRegistry"],
    ["A2A_HUB_STORE_LEASE_MS", "store.leaseMs"],
    ["A2A_HUB_RETRIES_BY_MESSAGE_ID", "retries.byMessageId"],
    ["A2A_HUB_READINESS_DRAIN_MS", "readinessDrainMs"],
    ["A2A_HUB_METRICS", "metrics.enabled"],
    ...LIMIT_KEYS.map((k): [string, string] => [limitEnvName(k), `limits.${k}`]),
  ];
  const column = Math.max(...rows.map(([env]) => env.length)) + 2;
  return rows.map(([env, key]) => `  ${env.padEnd(column)}${key}\n`).join("");
}

/** What `a2a-hub serve --help` (and `npm start -- --help`) prints. */
export function serveUsage(options: readonly OptionDoc[]): string {
  return `usage: a2a-hub serve [options]
       npm start -- [options]

Runs the hub: the configured agents (by default one echo agent) on one port,
over Connect, gRPC, gRPC-Web, JSON-RPC and REST, with tasks kept in SQLite
(or in PostgreSQL with --store).
Prints "a2a-hub listening on <url>"; SIGINT or SIGTERM stops it gracefully.
Flags win over environment variables, which win over the config file.

options:
${optionLines(options)}
set only by environment variable or config file:
${environmentOnly()}`;
}

/** What `a2a-hub hash-token --help` prints. */
export const HASH_TOKEN_USAGE = `usage: a2a-hub hash-token
       npm start -- hash-token

Prints a new random bearer token and its SHA-256. Give the token to the
client (a2a-hub's --token or A2A_TOKEN); put the sha256 in the tenant's
\`tokens\` list of the config file, which never holds the token itself.

options:
${optionLines([])}`;
