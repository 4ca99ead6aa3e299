import { describe, expect, it } from "vitest";
import { TaskState } from "../../../gen/a2a/v1/a2a_pb.js";
import { newContextId, newTaskId } from "../../../src/core/ids.js";
import { textRequest } from "../../helpers/messages.js";
import { startTestHub } from "../../helpers/test-hub.js";

/** RFC 9562 §5.7: version 7 in the 13th hex digit, variant 10xx in the 17th. */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("task and context ids", () => {
  it("are UUIDv7: unique, and in creation order as strings, across bindings", async () => {
    const t = await startTestHub();
    try {
      const ids: string[] = [];
      const contexts: string[] = [];
      for (let i = 0; i < 12; i++) {
        const binding = (["grpc", "grpc-web", "connect-h1", "connect-h2"] as const)[i % 4];
        const answer = await t.client(binding).sendMessage(textRequest(`id ${i}`));
        expect(answer.payload.case).toBe("task");
        if (answer.payload.case !== "task") return;
        expect(answer.payload.value.status?.state).toBe(TaskState.COMPLETED);
        ids.push(answer.payload.value.id);
        contexts.push(answer.payload.value.contextId);
        // Ids made within one millisecond still order by their random tail only; a pause keeps the check about time.
        await new Promise((r) => setTimeout(r, 2));
      }
      for (const id of [...ids, ...contexts]) expect(id).toMatch(UUID_V7);
      expect(new Set([...ids, ...contexts]).size).toBe(24);
      expect([...ids].sort()).toEqual(ids);
      expect([...contexts].sort()).toEqual(contexts);
    } finally {
      await t.stop();
    }
  });

  it("carry their creation millisecond: 10,000 made in a row are distinct, in time order, within the clock's span", async () => {
    const before = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) ids.push(i % 2 ? newTaskId() : newContextId());
    // Across a millisecond boundary too: the prefix formatted once per millisecond must move on.
    await new Promise((r) => setTimeout(r, 3));
    ids.push(newTaskId());
    const after = Date.now();
    const ms = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    for (const id of ids) {
      expect(id).toMatch(UUID_V7);
      expect(ms(id)).toBeGreaterThanOrEqual(before);
      expect(ms(id)).toBeLessThanOrEqual(after);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ms(ids.at(-1)!)).toBeGreaterThan(ms(ids[0]!));
    expect(ids.map(ms)).toEqual(ids.map(ms).sort((a, b) => a - b));
  });
});
