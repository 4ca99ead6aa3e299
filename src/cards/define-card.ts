import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";

/** A skill as a hosted agent describes it (§4.4.5); `tags` and the modes may be left out. */
export interface SkillFacts {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags?: readonly string[];
  readonly examples?: readonly string[];
  readonly inputModes?: readonly string[];
  readonly outputModes?: readonly string[];
}

/** What an agent says about itself; everything but name and description has a default. */
export interface CardFacts {
  readonly name: string;
  readonly description: string;
  /** The agent's own version (§4.4.1); default "1.0.0". */
  readonly version?: string;
  /** §4.4.5: at least one skill; default one skill named after the agent. */
  readonly skills?: readonly SkillFacts[];
  /** Media types the agent reads and writes; default text/plain and application/json. */
  readonly inputModes?: readonly string[];
  readonly outputModes?: readonly string[];
  /** Whether the hub may stream this agent's tasks (§3.1.2); default true. */
  readonly streaming?: boolean;
  /** Whether tasks may carry push notification configs (§3.5); default true. */
  readonly pushNotifications?: boolean;
  readonly provider?: { readonly organization: string; readonly url: string };
  readonly documentationUrl?: string;
  readonly iconUrl?: string;
}

const DEFAULT_MODES = ["text/plain", "application/json"];

/**
 * The card facts of an agent you host: every field §4.4.1 requires is
 * filled (a skill, modes, capabilities), so the card the hub serves is
 * valid however little is given. The hub adds the interfaces and security.
 */
export function agentCard(facts: CardFacts): AgentCard {
  const inputModes = [...(facts.inputModes ?? DEFAULT_MODES)];
  const outputModes = [...(facts.outputModes ?? DEFAULT_MODES)];
  const skills = facts.skills ?? [{ id: "default", name: facts.name, description: facts.description }];
  if (skills.length === 0) throw new Error("an agent card needs at least one skill (§4.4.5)");
  return create(AgentCardSchema, {
    name: facts.name,
    description: facts.description,
    version: facts.version ?? "1.0.0",
    provider: facts.provider,
    documentationUrl: facts.documentationUrl,
    iconUrl: facts.iconUrl,
    capabilities: { streaming: facts.streaming ?? true, pushNotifications: facts.pushNotifications ?? true, extendedAgentCard: false },
    defaultInputModes: inputModes,
    defaultOutputModes: outputModes,
    skills: skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: [...(s.tags ?? [])],
      examples: [...(s.examples ?? [])],
      inputModes: [...(s.inputModes ?? [])],
      outputModes: [...(s.outputModes ?? [])],
    })),
  });
}
