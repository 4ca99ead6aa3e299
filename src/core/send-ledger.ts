import { createHash } from "node:crypto";
import { create, toJson, type JsonValue } from "@bufbuild/protobuf";
import { MessageSchema, type Message } from "../../gen/a2a/v1/a2a_pb.js";
import type { SendKey, SentMessage, StoreScope, TaskStore } from "../store/index.js";
import { invalidParams } from "../protocol/index.js";

/** The request header (HTTP) / metadata key (gRPC, Connect) that names one send (IETF httpapi Idempotency-Key draft). */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

/** Longest Idempotency-Key accepted: a UUID needs 36; the room is for clients' own schemes. */
const MAX_KEY_LENGTH = 255;

/** Retry handling of one agent (config `retries:`). */
export interface RetryPolicy {
  /**
   * §3.3.1 ("agents MAY use the messageId to detect duplicates"): a send
   * whose messageId this tenant already sent to this agent, with the same
   * content, answers with the first outcome. Off by default: real clients
   * reuse messageIds across different messages and resend identical ones
   * expecting a new task.
   */
  readonly byMessageId: boolean;
}

/** The default: every SendMessage is a new message. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { byMessageId: false };

/** A send that runs as new; `key` is where its outcome is recorded (none: not recorded). */
export interface SendClaim {
  readonly kind: "new";
  readonly record?: { readonly key: SendKey; readonly fingerprint: Uint8Array };
  /** Lets a racing retry go on; call once the outcome is stored or the send failed. */
  readonly release: () => void;
}

/** A send the ledger already holds the outcome of. */
export interface PriorSend {
  readonly kind: "prior";
  readonly sent: SentMessage;
}

const UNRECORDED: SendClaim = { kind: "new", release: () => undefined };

/**
 * Which key, if any, names a send: the Idempotency-Key header whatever the
 * policy (the client asked for it on this one request), else the messageId
 * when the agent's policy dedupes by it, else none.
 */
export function sendKeyOf(message: Message, header: string | null, policy: RetryPolicy): SendKey | undefined {
  const key = idempotencyKey(header);
  if (key !== undefined) return { by: "idempotencyKey", value: key };
  return policy.byMessageId ? { by: "messageId", value: message.messageId } : undefined;
}

/**
 * The draft makes the header a Structured Field string (`"abc"`); most
 * clients send the bare value. Both are read; an empty header is absent.
 */
function idempotencyKey(header: string | null): string | undefined {
  if (header === null) return undefined;
  let v = header.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
  if (v === "") return undefined;
  if (v.length > MAX_KEY_LENGTH) throw invalidParams(IDEMPOTENCY_KEY_HEADER, `the ${IDEMPOTENCY_KEY_HEADER} header is longer than ${MAX_KEY_LENGTH} characters`);
  return v;
}

/**
 * §3.3.1: a client that retries a SendMessage (a lost answer, a timeout)
 * gets the outcome of the first attempt instead of a second task. Outcomes
 * are stored in the transaction that stored the task (see TaskEngine), so
 * this holds across restarts; a retry racing the original waits for it here.
 */
export class SendLedger {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly store: TaskStore) {}

  /**
   * The prior outcome of this send, or a claim to run it as new. The same
   * key on a different message: an Idempotency-Key is refused (the draft's
   * "reused key, other payload"; answering with an unrelated task would hide
   * the client's bug), while a messageId is a new message, unrecorded
   * (clients reuse messageIds across messages, and a client's habit must not
   * become a refusal).
   */
  async claim(scope: StoreScope, key: SendKey | undefined, message: Message): Promise<SendClaim | PriorSend> {
    if (!key) return UNRECORDED;
    const inFlightKey = `${scope.tenant}\u0000${scope.agentId}\u0000${key.by}\u0000${key.value}`;
    const fingerprint = fingerprintOf(message);
    for (;;) {
      const racing = this.inFlight.get(inFlightKey);
      if (racing) {
        await racing;
        continue;
      }
      // Claimed before the look-up, which a networked store answers later:
      // two racing sends cannot both be new.
      let settle!: () => void;
      this.inFlight.set(inFlightKey, new Promise<void>((resolve) => (settle = resolve)));
      const release = (): void => {
        this.inFlight.delete(inFlightKey);
        settle();
      };
      let sent: SentMessage | undefined;
      try {
        sent = await this.store.findSent(scope, key);
      } catch (e) {
        release();
        throw e;
      }
      if (!sent) return { kind: "new", record: { key, fingerprint }, release };
      release();
      if (Buffer.from(sent.fingerprint).equals(Buffer.from(fingerprint))) return { kind: "prior", sent };
      if (key.by === "messageId") return UNRECORDED;
      throw invalidParams(IDEMPOTENCY_KEY_HEADER, `the ${IDEMPOTENCY_KEY_HEADER} ${JSON.stringify(key.value)} was already used for a different message; a new message needs a new key`);
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
