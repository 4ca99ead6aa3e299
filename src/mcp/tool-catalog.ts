import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentSkill } from "../../gen/a2a/v1/a2a_pb.js";
import type { BackendAgent } from "./agent-backend.js";

/** One tool per hosted agent, or one per skill of each agent's card. */
export type ToolGrouping = "agent" | "skill";

/** A tool and the agent (and skill) a call of it goes to. */
export interface AgentTool {
  readonly agentId: string;
  readonly skillId?: string;
  readonly tool: Tool;
}

/** The arguments every agent tool takes: one A2A message (§3.2.1) and where it goes. */
export const MESSAGE_INPUT_SCHEMA = {
  type: "object",
  properties: {
    text: { type: "string", description: "The message text." },
    files: {
      type: "array",
      description: "Files sent with the message: each with base64 `data`, or a `uri` the agent can fetch.",
      items: {
        type: "object",
        properties: {
          name: { type: "string", description: "File name." },
          mimeType: { type: "string", description: "Media type, e.g. image/png." },
          data: { type: "string", description: "The content, base64." },
          uri: { type: "string", description: "Where the agent can fetch the file." },
        },
        additionalProperties: false,
      },
    },
    data: { type: "object", description: "Structured input, sent as a data part.", additionalProperties: true },
    taskId: { type: "string", description: "Continue this task: the answer to a task that asked for input." },
    contextId: { type: "string", description: "Send within this conversation context." },
  },
  additionalProperties: false,
} as const satisfies Tool["inputSchema"];

/** What every agent tool returns as structured content. */
export const TASK_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    taskId: { type: "string", description: "The A2A task; pass it back as taskId to continue it." },
    contextId: { type: "string" },
    state: { type: "string", description: "The task's state, e.g. TASK_STATE_COMPLETED or TASK_STATE_INPUT_REQUIRED." },
    question: { type: "string", description: "What the agent asks, when the task waits for input." },
    data: { type: "array", description: "The values of the data parts of the task's artifacts (or of the reply).", items: {} },
  },
} as const satisfies NonNullable<Tool["outputSchema"]>;

/** MCP tool names: letters, digits, `_`, `-` and `.`, at most 64 characters (the common limit of hosts). */
function toolName(raw: string): string {
  return raw.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64) || "agent";
}

function quoted(examples: readonly string[]): string {
  return examples.slice(0, 8).map((e) => JSON.stringify(e)).join(", ");
}

function skillLine(s: AgentSkill): string {
  const modes = s.inputModes.length > 0 ? ` Input: ${s.inputModes.join(", ")}.` : "";
  const examples = s.examples.length > 0 ? ` Examples: ${quoted(s.examples)}.` : "";
  return `- ${s.name || s.id}: ${s.description}${examples}${modes}`;
}

const CONTINUE = "The result names the A2A task and its state; a task that asks for input is continued by calling again with its taskId.";

/** The tool of a whole agent: described by its card, its skills and its input modes. */
function agentTool(a: BackendAgent): Tool {
  const c = a.card;
  const skills = c.skills.length > 0 ? `\n\nSkills:\n${c.skills.map(skillLine).join("\n")}` : "";
  const modes = c.defaultInputModes.length > 0 ? `\n\nAccepts: ${c.defaultInputModes.join(", ")}.` : "";
  return {
    name: toolName(a.id),
    title: c.name || a.id,
    description: `${c.description}${skills}${modes}\n\n${CONTINUE}`,
    inputSchema: MESSAGE_INPUT_SCHEMA,
    outputSchema: TASK_OUTPUT_SCHEMA,
  };
}

/** The tool of one skill of an agent. */
function skillTool(a: BackendAgent, s: AgentSkill): Tool {
  const modes = (s.inputModes.length > 0 ? s.inputModes : a.card.defaultInputModes).join(", ");
  const examples = s.examples.length > 0 ? `\n\nExamples: ${quoted(s.examples)}.` : "";
  return {
    name: toolName(`${a.id}__${s.id}`),
    title: `${a.card.name || a.id}: ${s.name || s.id}`,
    description: `${s.description}${examples}${modes ? `\n\nAccepts: ${modes}.` : ""}\n\n(Agent ${a.card.name || a.id}: ${a.card.description})\n\n${CONTINUE}`,
    inputSchema: MESSAGE_INPUT_SCHEMA,
    outputSchema: TASK_OUTPUT_SCHEMA,
  };
}

/**
 * The tools of a set of agents, named from their ids (stable, unique where
 * they are hosted; card names repeat across agents) and titled and
 * described from their cards. An agent without skills keeps one tool in
 * skill grouping. Names that collide once cleaned get a numeric suffix.
 */
export function agentTools(agents: readonly BackendAgent[], grouping: ToolGrouping = "agent"): AgentTool[] {
  const out: AgentTool[] = [];
  const taken = new Set<string>();
  const add = (t: AgentTool): void => {
    let name = t.tool.name;
    for (let i = 2; taken.has(name); i++) name = `${t.tool.name.slice(0, 60)}_${i}`;
    taken.add(name);
    out.push({ ...t, tool: { ...t.tool, name } });
  };
  for (const a of agents) {
    if (grouping === "skill" && a.card.skills.length > 0) for (const s of a.card.skills) add({ agentId: a.id, skillId: s.id, tool: skillTool(a, s) });
    else add({ agentId: a.id, tool: agentTool(a) });
  }
  return out;
}
