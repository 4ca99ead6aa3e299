import { randomUUID } from "node:crypto";
import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { MessageSchema, PartSchema, Role, type Message, type Part } from "../../gen/a2a/v1/a2a_pb.js";
import { invalidParams } from "../core/index.js";

/** Where a per-skill tool names its skill in the message metadata (A2A has no field for it). */
export const SKILL_METADATA_KEY = "a2a-hub/skill";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function str(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalidParams(key, "must be a string");
  return v;
}

function filePart(f: unknown, i: number): Part {
  const field = `files[${i}]`;
  if (typeof f !== "object" || f === null || Array.isArray(f)) throw invalidParams(field, "must be an object with data or uri");
  const o = f as Record<string, unknown>;
  const name = str(o, "name") ?? "";
  const mediaType = str(o, "mimeType") ?? "";
  const data = str(o, "data");
  const uri = str(o, "uri");
  if ((data === undefined) === (uri === undefined)) throw invalidParams(field, "needs exactly one of data (base64) or uri");
  if (data !== undefined) {
    const clean = data.replace(/\s+/g, "");
    if (clean.length % 4 === 1 || !BASE64.test(clean)) throw invalidParams(`${field}.data`, "is not base64");
    return create(PartSchema, { content: { case: "raw", value: Buffer.from(clean, "base64") }, filename: name, mediaType });
  }
  return create(PartSchema, { content: { case: "url", value: uri! }, filename: name, mediaType });
}

/**
 * §3.2.1: the message a tool call sends, from the tool's arguments (text,
 * files, data, and taskId/contextId to continue a conversation). Shapes
 * the schema allows but A2A does not are refused as InvalidParams; the
 * rest (empty messages, media types the agent does not take, sizes) is
 * judged by the service, as for every binding.
 */
export function toolMessage(args: Record<string, unknown> | undefined, skillId?: string): Message {
  const a = args ?? {};
  for (const key of Object.keys(a)) {
    if (!["text", "files", "data", "taskId", "contextId"].includes(key)) throw invalidParams(key, "is not an argument of this tool (text, files, data, taskId, contextId)");
  }
  const parts: Part[] = [];
  const text = str(a, "text");
  if (text !== undefined && text !== "") parts.push(create(PartSchema, { content: { case: "text", value: text } }));
  const files = a.files;
  if (files !== undefined) {
    if (!Array.isArray(files)) throw invalidParams("files", "must be an array");
    files.forEach((f, i) => parts.push(filePart(f, i)));
  }
  if (a.data !== undefined) {
    parts.push(create(PartSchema, { content: { case: "data", value: fromJson(ValueSchema, a.data as JsonValue) } }));
  }
  return create(MessageSchema, {
    messageId: randomUUID(),
    role: Role.USER,
    parts,
    taskId: str(a, "taskId") ?? "",
    contextId: str(a, "contextId") ?? "",
    metadata: skillId === undefined ? undefined : { [SKILL_METADATA_KEY]: skillId },
  });
}

/** The answer to a question of an input-required task (§3.4.3): a text message continuing it. */
export function answerMessage(taskId: string, contextId: string, text: string): Message {
  return create(MessageSchema, { messageId: randomUUID(), role: Role.USER, taskId, contextId, parts: [{ content: { case: "text", value: text } }] });
}
