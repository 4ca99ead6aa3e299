import pg from "pg";
import { create } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskState, TaskStatusSchema } from "../gen/a2a/v1/a2a_pb.js";
import { PostgresTaskStore } from "../src/store/index.js";
import { PostgresCluster } from "../test/helpers/postgres-cluster.js";

const cluster = await PostgresCluster.start();
try {
  const url = await cluster.createDatabase();
  const store = await PostgresTaskStore.open({ url, poolSize: 2 });
  const scope = { tenant: "t", agentId: "a" };
  const st = (s: TaskState) => create(TaskStatusSchema, { state: s });
  const ev = (s: TaskState) => create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: "x", contextId: "c", status: st(s) } } });
  store.beginBatch();
  store.createTask(scope, { id: "x", contextId: "c", status: st(TaskState.SUBMITTED), history: [] } as never, create(StreamResponseSchema, { payload: { case: "task", value: { id: "x", contextId: "c", status: st(TaskState.SUBMITTED) } } }));
  store.setStatus(scope, "x", st(TaskState.WORKING), ev(TaskState.WORKING));
  await store.commitBatch();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  console.log("after create+working", (await c.query("SELECT state, owner, last_seq FROM tasks")).rows, store.fleet?.replica);
  store.beginBatch();
  store.setStatus(scope, "x", st(TaskState.WORKING), ev(TaskState.WORKING));
  await store.commitBatch();
  console.log("after working again", (await c.query("SELECT state, owner, last_seq FROM tasks")).rows);
  store.beginBatch();
  store.setStatus(scope, "x", st(TaskState.COMPLETED), ev(TaskState.COMPLETED));
  await store.commitBatch();
  console.log("after completed", (await c.query("SELECT state, owner, last_seq FROM tasks")).rows, (await c.query("SELECT * FROM task_counts")).rows);
  await c.end();
  await store.close();
} finally {
  await cluster.stop();
}
