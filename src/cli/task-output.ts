import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { stateName } from "../protocol/index.js";
import type { AgentCard, Message, Part, Task, TaskStatus } from "../../gen/a2a/v1/a2a_pb.js";

/** A part as text: text as it is, data as JSON, files by name and URL or size. */
export function partText(part: Part): string {
  const c = part.content;
  switch (c.case) {
    case "text":
      return c.value;
    case "data":
      return JSON.stringify(toJson(ValueSchema, c.value) as JsonValue);
    case "url":
      return `[file ${part.filename || ""} ${c.value}]`.replace("  ", " ");
    case "raw":
      return `[file ${part.filename || "(unnamed)"}, ${c.value.length} bytes${part.mediaType ? `, ${part.mediaType}` : ""}]`;
    default:
      return "";
  }
}

/** A message's parts as text. */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? []).map(partText).join("");
}

/** "[completed] the status message" */
export function statusLine(status: TaskStatus | undefined): string {
  const text = messageText(status?.message);
  return `[${stateName(status?.state, "kebab")}]${text ? ` ${text}` : ""}`;
}

/** Every artifact's text, each ending with a newline. */
export function artifactsText(task: Task): string {
  return task.artifacts
    .map((a) => a.parts.map(partText).join(""))
    .filter((t) => t !== "")
    .map((t) => (t.endsWith("\n") ? t : `${t}\n`))
    .join("");
}

/** A card for people: name, description, interfaces, capabilities, skills. */
export function cardText(card: AgentCard): string {
  const lines = [`${card.name}${card.version ? ` ${card.version}` : ""}`, card.description, "", "interfaces:"];
  for (const i of card.supportedInterfaces) lines.push(`  ${i.protocolBinding} ${i.protocolVersion}  ${i.url}${i.tenant ? `  (tenant ${i.tenant})` : ""}`);
  const caps = card.capabilities;
  const flags = [caps?.streaming && "streaming", caps?.pushNotifications && "push notifications", caps?.extendedAgentCard && "extended card"].filter(Boolean);
  lines.push(`capabilities: ${flags.length > 0 ? flags.join(", ") : "none"}`);
  if (card.skills.length > 0) {
    lines.push("skills:");
    for (const s of card.skills) lines.push(`  ${s.id}: ${s.name}${s.description ? ` — ${s.description}` : ""}`);
  }
  return `${lines.join("\n")}\n`;
}
