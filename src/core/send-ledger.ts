import { createHash } from "node:crypto";
import { create, toJson, type JsonValue } from "@bufbuild/protobuf";
import { MessageSchema, type Message } from "../../gen/a2a/v1/a2a_pb.js";
import type { SentMessage, StoreScope, TaskStore } from "../store/index.js";
import { invalidParams } from "./a2a-error.js";

/** A send that is new: the caller runs it, then releases the claim. */
export interface SendClaim {
  readonly kind: "new";
  /** Lets a racing retry go on; call once the outcome is stored or the send failed. */
  readonly release: () => void;
}

/** A send whose messageId this tenant already used for the same message. */
export interface PriorSend {
  readonly kind: "prior";
  readonly sent: SentMessage;
}

/**
 * §3.3.1: "agents may utilize the messageId to detect duplicate messages".
 * A client that retries a SendMessage (a lost answer, a timeout) gets the
 * outcome of the first attempt instead of a second task. Outcomes are
 * stored in the transaction that stored the task (see TaskEngine), so this
 * holds across restarts; a retry racing the original waits for it here.
 */
export class SendLedger {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly store: TaskStore) {}

  /**
   * The prior outcome of this message, or a claim to run it as new. A
   * messageId reused for a different message is InvalidParams: answering
   * with an unrelated task would hide the client's bug.
   */
  async claim(scope: StoreScope, message: Message): Promise<SendClaim | PriorSend> {
    const key = `${scope.tenant}\u0000${scope.agentId}\u0000${message.messageId}`;
    const fingerprint = fingerprintOf(message);
    for (;;) {
      // Look up and claim in one tick: two racing sends cannot both be new.
      const sent = this.store.findSent(scope, message.messageId);
      if (sent) {
        if (!Buffer.from(sent.fingerprint).equals(Buffer.from(fingerprint))) {
          throw invalidParams("message.messageId", `${message.messageId} was already used for a different message; a new message needs a new messageId`);
        }
        return { kind: "prior", sent };
      }
      const racing = this.inFlight.get(key);
      if (!racing) {
        let release!: () => void;
        this.inFlight.set(key, new Promise<void>((resolve) => (release = resolve)));
        return {
          kind: "new",
          release: () => {
            this.inFlight.delete(key);
            release();
          },
        };
      }
      await racing;
    }
  }
}

/**
 * What makes two sends the same message: its parts and the task and context
 * it names. Metadata and extensions may differ between a send and its retry.
 * Hashed over JSON with sorted keys, not the binary form: protobuf writes a
 * Struct's entries (data parts, part metadata) in insertion order, and a
 * retry may list the same object's keys in another order.
 */
export function fingerprintOf(message: Message): Uint8Array {
  const essence = create(MessageSchema, { parts: message.parts, taskId: message.taskId, contextId: message.contextId });
  return createHash("sha256").update(canonicalJson(toJson(MessageSchema, essence))).digest();
}

/** JSON text with every object's keys sorted, so equal values give equal text. */
function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
