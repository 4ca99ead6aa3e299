import type { Readable, Writable } from "node:stream";
import { isBindingName } from "../client/index.js";
import { remoteBackend, serveMcpStdio, type ToolGrouping } from "../mcp/index.js";
import { parseArguments, type OptionDoc } from "./cli-args.js";
import { UsageError, type CliIo } from "./cli-io.js";
import { EXIT } from "./exit-codes.js";
import { optionLines } from "./usage-text.js";
import { packageVersion } from "./version.js";

const OPTIONS: readonly OptionDoc[] = [
  { name: "url", value: "URL", help: "the hub's base URL (its agents, from its catalog) or one agent's base or card URL" },
  { name: "token", value: "T", env: "A2A_TOKEN", help: "bearer token sent to the hub or agent" },
  { name: "binding", value: "B", help: "jsonrpc, rest or grpc (default: the best each card offers)" },
  { name: "tenant", value: "T", help: "tenant to address when a card names none" },
  { name: "timeout", value: "MS", help: "deadline of each call; for a stream, of its first event (60000)" },
  { name: "tools", value: "agent|skill", help: "one tool per agent (default) or one per skill of each card" },
];

/** What `a2a-hub mcp --help` prints. */
export const MCP_USAGE = `usage: a2a-hub mcp --url URL [options]

Serves the agents of an A2A hub or agent as MCP tools over stdio, for MCP
hosts that launch local processes (Claude Desktop, VS Code, …). Each call
goes to the remote agent through the A2A client; its tasks are resources
a2a://tasks/{id}. stdout carries MCP only; problems go to stderr. Runs
until the host closes stdin.

options:
${optionLines(OPTIONS)}`;

/** `a2a-hub mcp`: the stdio MCP bridge to a remote hub or agent. */
export async function mcpCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArguments("mcp", argv, OPTIONS);
  if (values.help) {
    io.stdout.write(MCP_USAGE);
    return EXIT.ok;
  }
  if (values.version) {
    io.stdout.write(`a2a-hub ${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`mcp: unexpected argument ${JSON.stringify(positionals[0])} (the URL goes in --url)`);
  const url = values.url as string | undefined;
  if (!url || !/^https?:\/\//.test(url)) throw new UsageError(`mcp: --url needs the http(s) URL of a hub or agent${url ? `, got ${JSON.stringify(url)}` : ""}`);
  const binding = values.binding as string | undefined;
  if (binding !== undefined && !isBindingName(binding)) throw new UsageError(`--binding: expected jsonrpc, rest or grpc, got ${JSON.stringify(binding)}`);
  const tools = (values.tools as string | undefined) ?? "agent";
  if (tools !== "agent" && tools !== "skill") throw new UsageError(`--tools: expected agent or skill, got ${JSON.stringify(tools)}`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 0)) throw new UsageError(`--timeout: expected milliseconds, got ${JSON.stringify(values.timeout)}`);
  const backend = await remoteBackend(url, {
    token: (values.token as string | undefined) ?? io.env.A2A_TOKEN,
    bindings: binding ? [binding] : undefined,
    tenant: values.tenant as string | undefined,
    timeoutMs: timeout,
  });
  try {
    await serveMcpStdio(backend, { stdin: io.stdin as Readable, stdout: io.stdout as Writable }, { tools: tools as ToolGrouping, version: packageVersion() });
  } finally {
    backend.close();
  }
  return EXIT.ok;
}
