import type { Message } from "../../gen/a2a/v1/a2a_pb.js";

/** The text parts of a message (or an artifact), joined: what a status message or a reply says. */
export function textOf(message: Pick<Message, "parts"> | undefined): string {
  return (message?.parts ?? []).map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
}
