import { readFileSync } from "node:fs";
import { fromJson, toJson, toJsonString, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  AgentCardSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  type Part,
  type StreamResponse,
} from "../../gen/a2a/v1/a2a_pb.js";
import { A2AClient, CardSignatureError, ClientCredentials, clientFailureOf, isBindingName, type CardTrust, type ClientOptions } from "../client/index.js";
import { isA2AError, stateName } from "../core/index.js";
import { parseArguments, type OptionDoc } from "./cli-args.js";
import { readAll, UsageError, type CliIo } from "./cli-io.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { artifactsText, cardText, messageText, partText, statusLine } from "./task-output.js";
import { optionLines, wrap } from "./usage-text.js";
import { trustExtraCa } from "./extra-ca.js";
import { packageVersion } from "./version.js";

/** Flags every client command takes. */
const COMMON: readonly OptionDoc[] = [
  { name: "token", value: "T", env: "A2A_TOKEN", help: "bearer token (the variable keeps it out of shell history and ps)" },
  { name: "token-url", value: "URL", help: "get tokens by OAuth 2.0 client credentials at this token endpoint (with --client-id)" },
  { name: "client-id", value: "ID", help: "the OAuth 2.0 client id for --token-url" },
  { name: "client-secret-env", value: "VAR", help: "the environment variable holding the client secret (A2A_CLIENT_SECRET)" },
  { name: "scope", value: "S", help: "the scopes to ask the token endpoint for, space-separated" },
  { name: "binding", value: "B", help: "jsonrpc, rest or grpc (default: the best the card offers)" },
  { name: "tenant", value: "T", help: "tenant to address when the card names none" },
  { name: "timeout", value: "MS", help: "deadline of each call; for a stream, of its first event (60000)" },
  { name: "json", help: "machine-readable output (NDJSON for streams; errors as JSON on stderr)" },
  { name: "verify", help: "refuse the agent's card unless a trusted key signed it (§8.4); needs --jwks" },
  { name: "jwks", value: "URL|FILE", help: "the trusted keys for --verify: a JWKS URL or file" },
  { name: "cacert", value: "FILE", help: "also trust the CA certificates (PEM) in FILE, for a hub with a private CA (or NODE_EXTRA_CA_CERTS)" },
];

/** One client command: its flags, its usage line, and what it does. */
interface ClientCommand {
  /** Its arguments, as the usage shows them: "send <url> [text…]". */
  readonly usage: string;
  /** One or two sentences for its --help. */
  readonly summary: string;
  readonly options: readonly OptionDoc[];
  /** How many arguments it takes after the URL. */
  readonly maxArgs: number;
  run(run: CommandRun): Promise<number>;
}

/** A parsed invocation of a client command. */
interface CommandRun {
  readonly url: string;
  readonly args: string[];
  readonly flags: Record<string, string | boolean | undefined>;
  readonly json: boolean;
  readonly io: CliIo;
  client(): Promise<A2AClient>;
}

const MESSAGE_FLAGS: readonly OptionDoc[] = [
  { name: "task", value: "ID", help: "continue this task (e.g. one that is input-required)" },
  { name: "context", value: "ID", help: "send within this context" },
  { name: "data", value: "JSON", help: "add a data part holding this JSON value" },
];

/** The client commands, by name. */
export const CLIENT_COMMANDS: Readonly<Record<string, ClientCommand>> = {
  card: {
    usage: "card <url>",
    summary: "Shows an agent's card, and on stderr the interface this client picks from it.",
    options: [],
    maxArgs: 0,
    async run(r) {
      const client = await r.client();
      write(r.io.stdout, r.json ? json(AgentCardSchema, client.card) : cardText(client.card));
      if (!r.json && client.cardSignature) write(r.io.stderr, `signature verified: kid ${client.cardSignature.kid}, ${client.cardSignature.alg}\n`);
      if (!r.json) write(r.io.stderr, `using ${client.chosen.binding} ${client.chosen.version} at ${client.chosen.url}\n`);
      return EXIT.ok;
    },
  },
  send: {
    usage: "send <url> [text…]",
    summary: "Sends a message (its text from stdin when none is given) and waits for the task: its artifacts on stdout, its state on stderr, the state as the exit code.",
    options: [...MESSAGE_FLAGS, { name: "no-wait", help: "return once the task is accepted (exit code 8 while it runs)" }],
    maxArgs: Infinity,
    async run(r) {
      const client = await r.client();
      const res = await client.send({ message: await messageOf(r), configuration: r.flags["no-wait"] ? { returnImmediately: true } : undefined });
      if (r.json) write(r.io.stdout, json(SendMessageResponseSchema, res));
      if (res.payload.case === "message") {
        if (!r.json) write(r.io.stdout, withNewline(messageText(res.payload.value)));
        return EXIT.ok;
      }
      const task = res.payload.value;
      if (!task) throw new UsageError("the agent answered with neither a task nor a message");
      if (!r.json) {
        write(r.io.stdout, artifactsText(task));
        write(r.io.stderr, `task ${task.id} ${statusLine(task.status)}\n`);
      }
      return exitCodeOf(task.status?.state);
    },
  },
  stream: {
    usage: "stream <url> [text…]",
    summary: "Sends a message and streams the answer: artifact chunks on stdout as they arrive, the task and its status changes on stderr.",
    options: MESSAGE_FLAGS,
    maxArgs: Infinity,
    async run(r) {
      const client = await r.client();
      return follow(r, client.stream({ message: await messageOf(r) }));
    },
  },
  get: {
    usage: "get <url> <task-id>",
    summary: "Shows a task: its state, context and artifacts.",
    options: [{ name: "history", value: "N", help: "include at most the last N messages of its history" }],
    maxArgs: 1,
    async run(r) {
      const client = await r.client();
      const task = await client.get({ id: oneArg(r, "task-id"), historyLength: intFlag(r, "history", 0) });
      if (r.json) write(r.io.stdout, json(TaskSchema, task));
      else write(r.io.stdout, `task ${task.id}\ncontext ${task.contextId}\n${statusLine(task.status)}\n${artifactsText(task)}`);
      return exitCodeOf(task.status?.state);
    },
  },
  list: {
    usage: "list <url>",
    summary: "Lists tasks, newest first: id, state and context, one per line.",
    options: [
      { name: "context", value: "ID", help: "only the tasks of this context" },
      { name: "status", value: "STATE", help: "only tasks in this state (submitted, working, completed, input-required…)" },
      { name: "page-size", value: "N", help: "at most N tasks" },
      { name: "page-token", value: "T", help: "the page after the one that printed this token" },
      { name: "artifacts", help: "include the tasks' artifacts (with --json)" },
    ],
    maxArgs: 0,
    async run(r) {
      const client = await r.client();
      const page = await client.list({
        contextId: str(r, "context") ?? "",
        status: r.flags.status === undefined ? TaskState.UNSPECIFIED : stateOf(String(r.flags.status)),
        pageSize: intFlag(r, "page-size", 1),
        pageToken: str(r, "page-token") ?? "",
        includeArtifacts: r.flags.artifacts === true ? true : undefined,
      });
      if (r.json) {
        write(r.io.stdout, json(ListTasksResponseSchema, page));
        return EXIT.ok;
      }
      for (const t of page.tasks) write(r.io.stdout, `${t.id}  ${stateName(t.status?.state, "kebab")}  ${t.contextId}\n`);
      if (page.nextPageToken) write(r.io.stderr, `more: --page-token ${page.nextPageToken}\n`);
      return EXIT.ok;
    },
  },
  cancel: {
    usage: "cancel <url> <task-id>",
    summary: "Cancels a task; exits 0 once it is canceled.",
    options: [],
    maxArgs: 1,
    async run(r) {
      const client = await r.client();
      const task = await client.cancel(oneArg(r, "task-id"));
      write(r.io.stdout, r.json ? json(TaskSchema, task) : `task ${task.id} ${statusLine(task.status)}\n`);
      return task.status?.state === TaskState.CANCELED ? EXIT.ok : exitCodeOf(task.status?.state);
    },
  },
  subscribe: {
    usage: "subscribe <url> <task-id>",
    summary: "Follows a running task's events, as stream prints them.",
    options: [],
    maxArgs: 1,
    async run(r) {
      const client = await r.client();
      return follow(r, client.subscribe(oneArg(r, "task-id")));
    },
  },
};

/**
 * Runs a client command: `a2a-hub <command> <url> …`. Returns the exit code;
 * failures are printed (as JSON on stderr with --json) and exit 1.
 */
export async function runClientCommand(name: string, argv: readonly string[], io: CliIo): Promise<number> {
  const command = CLIENT_COMMANDS[name]!;
  const { values, positionals } = parseArguments(name, argv, [...command.options, ...COMMON]);
  if (values.help) return writeOk(io.stdout, clientUsage(name));
  if (values.version) return writeOk(io.stdout, `a2a-hub ${packageVersion()}\n`);
  const [url, ...args] = positionals;
  if (!url) throw new UsageError(`${name}: the agent's URL is missing (usage: a2a-hub ${command.usage})`);
  if (!/^https?:\/\//.test(url)) throw new UsageError(`${name}: ${JSON.stringify(url)} is not an http(s) URL`);
  if (args.length > command.maxArgs) throw new UsageError(`${name}: unexpected argument ${JSON.stringify(args[command.maxArgs])} (usage: a2a-hub ${command.usage})`);
  const binding = values.binding as string | undefined;
  if (binding !== undefined && !isBindingName(binding)) throw new UsageError(`--binding: expected jsonrpc, rest or grpc, got ${JSON.stringify(binding)}`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 0)) throw new UsageError(`--timeout: expected milliseconds, got ${JSON.stringify(values.timeout)}`);
  const json = values.json === true;
  if (values.cacert !== undefined) trustExtraCa(String(values.cacert));
  const options: ClientOptions = {
    // A token from the environment stays out of shell history and `ps`.
    token: (values.token as string | undefined) ?? io.env.A2A_TOKEN,
    credentials: credentialsOf(values, io.env),
    bindings: binding ? [binding] : undefined,
    timeoutMs: timeout,
    tenant: values.tenant as string | undefined,
    verifyCard: cardTrustOf(values.verify === true, values.jwks as string | undefined),
  };
  let client: A2AClient | undefined;
  const run: CommandRun = { url, args, flags: values as CommandRun["flags"], json, io, client: async () => (client ??= await A2AClient.connect(url, options)) };
  try {
    return await command.run(run);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    reportFailure(e, json, io);
    return EXIT.error;
  } finally {
    client?.close();
  }
}

/** `--token-url --client-id [--client-secret-env VAR] [--scope S]`: tokens by OAuth 2.0 client credentials, the secret from the environment only. */
function credentialsOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv): ClientCredentials | undefined {
  const tokenUrl = values["token-url"] as string | undefined;
  const clientId = values["client-id"] as string | undefined;
  if (tokenUrl === undefined && clientId === undefined) return undefined;
  if (tokenUrl === undefined || clientId === undefined) throw new UsageError("--token-url and --client-id go together");
  if (!/^https?:\/\//.test(tokenUrl)) throw new UsageError(`--token-url: ${JSON.stringify(tokenUrl)} is not an http(s) URL`);
  const secretEnv = (values["client-secret-env"] as string | undefined) ?? "A2A_CLIENT_SECRET";
  const clientSecret = env[secretEnv];
  if (!clientSecret) throw new UsageError(`--client-secret-env: the environment variable ${secretEnv} is not set`);
  return new ClientCredentials({ tokenUrl, clientId, clientSecret, scope: values.scope as string | undefined });
}

/** Prints a stream: chunks on stdout as they arrive, the task and its status changes on stderr. */
async function follow(r: CommandRun, events: AsyncIterable<StreamResponse>): Promise<number> {
  let state: TaskState | undefined;
  let replied = false;
  let last = "\n";
  const out = (text: string): void => {
    if (text === "") return;
    write(r.io.stdout, text);
    last = text.at(-1)!;
  };
  // A status line goes to stderr; on a terminal it shares the line of a chunk not yet ended, so end that first.
  const status = (line: string): void => {
    if (last !== "\n") out("\n");
    write(r.io.stderr, line);
  };
  for await (const e of events) {
    if (r.json) {
      write(r.io.stdout, `${toJsonString(StreamResponseSchema, e)}\n`);
    }
    const p = e.payload;
    switch (p.case) {
      case "task":
        state = p.value.status?.state;
        if (!r.json) status(`task ${p.value.id} (context ${p.value.contextId}) ${statusLine(p.value.status)}\n`);
        if (!r.json) out(artifactsText(p.value));
        break;
      case "statusUpdate":
        state = p.value.status?.state;
        if (!r.json) status(`${statusLine(p.value.status)}\n`);
        break;
      case "artifactUpdate":
        if (!r.json) out((p.value.artifact?.parts ?? []).map(partText).join(""));
        break;
      case "message":
        replied = true;
        if (!r.json) out(withNewline(messageText(p.value)));
        break;
    }
  }
  // Chunks are written as they come; the output still ends with a newline.
  if (last !== "\n") write(r.io.stdout, "\n");
  return replied ? EXIT.ok : exitCodeOf(state);
}

/** The message of send and stream: the words after the URL, or stdin, plus any --data part. */
async function messageOf(r: CommandRun): Promise<{ taskId: string; contextId: string; parts: Part[] }> {
  let text = r.args.join(" ");
  if (r.args.length === 0 || (r.args.length === 1 && r.args[0] === "-")) {
    if (r.io.stdin.isTTY && r.flags.data === undefined) throw new UsageError("no message: give its text after the URL, or pipe it to stdin");
    text = r.io.stdin.isTTY ? "" : await readAll(r.io.stdin);
  }
  const parts: Part[] = [];
  if (text !== "") parts.push({ content: { case: "text", value: text } } as Part);
  if (r.flags.data !== undefined) {
    let value: JsonValue;
    try {
      value = JSON.parse(String(r.flags.data)) as JsonValue;
    } catch {
      throw new UsageError("--data: not JSON");
    }
    parts.push({ content: { case: "data", value: fromJson(ValueSchema, value) }, mediaType: "application/json" } as Part);
  }
  if (parts.length === 0) throw new UsageError("the message is empty");
  return { taskId: str(r, "task") ?? "", contextId: str(r, "context") ?? "", parts };
}

function reportFailure(e: unknown, json: boolean, io: CliIo): void {
  const name = isA2AError(e) ? e.a2a : e instanceof CardSignatureError ? e.name : "Error";
  const message = e instanceof Error ? e.message : String(e);
  const failure = clientFailureOf(e);
  if (json) {
    const error: Record<string, unknown> = { name, message };
    if (isA2AError(e)) error.reason = e.row.reason;
    if (failure) error.clientFailure = failure;
    write(io.stderr, `${JSON.stringify({ error })}\n`);
    return;
  }
  write(io.stderr, `a2a-hub: ${failure ? "" : `${name}: `}${message}\n`);
}

/** "completed", "TASK_STATE_COMPLETED", "input-required", "INPUT_REQUIRED" → the state. */
function stateOf(text: string): TaskState {
  const key = text.trim().toUpperCase().replace(/-/g, "_").replace(/^TASK_STATE_/, "");
  const state = (TaskState as unknown as Record<string, number>)[key === "CANCELLED" ? "CANCELED" : key];
  if (state === undefined || state === TaskState.UNSPECIFIED) throw new UsageError(`--status: unknown state ${JSON.stringify(text)}`);
  return state;
}

function oneArg(r: CommandRun, name: string): string {
  if (r.args.length !== 1) throw new UsageError(`expected one <${name}> after the URL`);
  return r.args[0]!;
}

function str(r: CommandRun, flag: string): string | undefined {
  const v = r.flags[flag];
  return typeof v === "string" ? v : undefined;
}

function intFlag(r: CommandRun, flag: string, min: number): number | undefined {
  const v = str(r, flag);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min) throw new UsageError(`--${flag}: expected a whole number of at least ${min}, got ${JSON.stringify(v)}`);
  return n;
}

function json<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): string {
  return `${JSON.stringify(toJson(schema, message), null, 2)}\n`;
}

function withNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/** What `a2a-hub <command> --help` prints for a client command. */
export function clientUsage(name: string): string {
  const command = CLIENT_COMMANDS[name]!;
  return `usage: a2a-hub ${command.usage} [options]

${wrap(command.summary)}

<url> is an agent's base URL (its /.well-known/agent-card.json is read) or
the URL of its card.

options:
${optionLines([...command.options, ...COMMON])}
exit codes: 0 completed (or a message, or nothing to report), 1 the request
failed, 2 usage or configuration, 3 failed, 4 canceled, 5 rejected, 6 input-required,
7 auth-required, 8 still submitted or working.
`;
}

function writeOk(stream: NodeJS.WritableStream, text: string): number {
  stream.write(text);
  return EXIT.ok;
}

function write(stream: NodeJS.WritableStream, text: string): void {
  if (text !== "") stream.write(text);
}

/** `--verify --jwks URL|FILE`: the trusted keys of §8.4.3, from a JWKS URL or a JWKS file. */
function cardTrustOf(verify: boolean, jwks: string | undefined): CardTrust | undefined {
  if (!verify && jwks === undefined) return undefined;
  if (!verify || jwks === undefined) throw new UsageError("--verify and --jwks go together: --verify --jwks <JWKS URL or file>");
  if (/^https?:\/\//.test(jwks)) return { jwksUrl: jwks };
  let keys: unknown;
  try {
    keys = JSON.parse(readFileSync(jwks, "utf8"));
  } catch (e) {
    throw new UsageError(`--jwks: cannot read a JWKS from ${jwks}: ${(e as Error).message}`);
  }
  if (!Array.isArray((keys as { keys?: unknown }).keys)) throw new UsageError(`--jwks: ${jwks} is not a JWKS document ({"keys": [...]})`);
  return { keys: keys as CardTrust["keys"] & object };
}
