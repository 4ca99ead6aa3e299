import type Database from "better-sqlite3";
import { toBinary } from "@bufbuild/protobuf";
import { MessageSchema } from "../../../gen/a2a/v1/a2a_pb.js";
import type { SendKey, SentMessage, StoreScope } from "../task-store.js";
import { decode } from "../encoding/index.js";

type RecordParams = [tenant: string, agent: string, key: string, fingerprint: Uint8Array, taskId: string | null, reply: Uint8Array | null, createdMs: number];
type RecordRow = { fingerprint: Buffer; task_id: string | null; reply: Buffer | null };

/** The two statements of one namespace of keys. */
interface Namespace {
  readonly remember: Database.Statement<RecordParams>;
  readonly find: Database.Statement<[tenant: string, agent: string, key: string], RecordRow>;
}

/**
 * The send ledger (§3.3.1): what became of each client message, by
 * messageId (`sent_messages`) or by Idempotency-Key header
 * (`idempotency_keys`), two namespaces so that a key and a messageId with
 * the same text never meet. The first record of a key wins.
 */
export class SendLedger {
  private readonly byMessageId: Namespace;
  private readonly byIdempotencyKey: Namespace;

  constructor(db: Database.Database) {
    this.byMessageId = {
      remember: db.prepare(`INSERT INTO sent_messages (tenant, agent, message_id, fingerprint, task_id, reply, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT (tenant, agent, message_id) DO NOTHING`),
      find: db.prepare(`SELECT fingerprint, task_id, reply FROM sent_messages WHERE tenant = ? AND agent = ? AND message_id = ?`),
    };
    this.byIdempotencyKey = {
      remember: db.prepare(`INSERT INTO idempotency_keys (tenant, agent, idem_key, fingerprint, task_id, reply, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT (tenant, agent, idem_key) DO NOTHING`),
      find: db.prepare(`SELECT fingerprint, task_id, reply FROM idempotency_keys WHERE tenant = ? AND agent = ? AND idem_key = ?`),
    };
  }

  private of(key: SendKey): Namespace {
    return key.by === "idempotencyKey" ? this.byIdempotencyKey : this.byMessageId;
  }

  remember(scope: StoreScope, sent: SentMessage): void {
    this.of(sent.key).remember.run(
      scope.tenant,
      scope.agentId,
      sent.key.value,
      sent.fingerprint,
      sent.taskId ?? null,
      sent.reply ? toBinary(MessageSchema, sent.reply) : null,
      Date.now(),
    );
  }

  find(scope: StoreScope, key: SendKey): SentMessage | undefined {
    const r = this.of(key).find.get(scope.tenant, scope.agentId, key.value);
    if (!r) return undefined;
    return {
      key,
      fingerprint: r.fingerprint,
      taskId: r.task_id ?? undefined,
      reply: r.reply ? decode(MessageSchema, r.reply) : undefined,
    };
  }
}
