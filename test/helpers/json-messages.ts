import { randomUUID } from "node:crypto";

/** A v1.0 ProtoJSON user message with one text part, and any overrides. */
export const userMessage = (text: string, extra: object = {}) => ({ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra });

/** A v0.3 (kind-tagged) user message with one text part, and any overrides. */
export const v03Message = (text: string, extra: object = {}) => ({ kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }], ...extra });
