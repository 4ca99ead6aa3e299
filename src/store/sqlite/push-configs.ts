import type Database from "better-sqlite3";
import { toBinary } from "@bufbuild/protobuf";
import { TaskPushNotificationConfigSchema, type TaskPushNotificationConfig } from "../../../gen/a2a/v1/a2a_pb.js";
import { decode, expectRow } from "../encoding/index.js";

/** A config to store on a task. */
export interface PushConfigWrite {
  readonly pk: number;
  readonly config: TaskPushNotificationConfig;
  /** The A2A version the config was created under: it picks the shape of its webhook payloads. */
  readonly version: string;
}

/** The `push_configs` table: a task's webhook configs by id, listed in creation order. */
export class PushConfigs {
  private readonly putStmt: Database.Statement<[number, string, Uint8Array, number, string]>;
  private readonly getStmt: Database.Statement<[number, string], { config: Buffer }>;
  private readonly listStmt: Database.Statement<[number], { config: Buffer }>;
  private readonly countStmt: Database.Statement<[number], { n: number }>;
  private readonly deleteStmt: Database.Statement<[number, string]>;

  constructor(db: Database.Database) {
    this.putStmt = db.prepare(`INSERT INTO push_configs (task_pk, id, config, created_ms, version) VALUES (?, ?, ?, ?, ?)
                               ON CONFLICT (task_pk, id) DO UPDATE SET config = excluded.config, version = excluded.version`);
    this.getStmt = db.prepare(`SELECT config FROM push_configs WHERE task_pk = ? AND id = ?`);
    this.listStmt = db.prepare(`SELECT config FROM push_configs WHERE task_pk = ? ORDER BY created_ms, id`);
    this.countStmt = db.prepare(`SELECT COUNT(*) AS n FROM push_configs WHERE task_pk = ?`);
    this.deleteStmt = db.prepare(`DELETE FROM push_configs WHERE task_pk = ? AND id = ?`);
  }

  /** Stores a config; one with the same id is replaced but keeps its place in the list. */
  put(write: PushConfigWrite): void {
    this.putStmt.run(write.pk, write.config.id, toBinary(TaskPushNotificationConfigSchema, write.config), Date.now(), write.version);
  }

  get(pk: number, id: string): TaskPushNotificationConfig | undefined {
    const c = this.getStmt.get(pk, id);
    return c && decode(TaskPushNotificationConfigSchema, c.config);
  }

  list(pk: number): TaskPushNotificationConfig[] {
    return this.listStmt.all(pk).map((c) => decode(TaskPushNotificationConfigSchema, c.config));
  }

  count(pk: number): number {
    return expectRow(this.countStmt.get(pk), "a count").n;
  }

  /** True when a config was deleted. */
  delete(pk: number, id: string): boolean {
    return this.deleteStmt.run(pk, id).changes > 0;
  }
}
