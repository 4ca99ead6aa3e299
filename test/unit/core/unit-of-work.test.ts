import { describe, expect, it } from "vitest";
import { UnitOfWork } from "../../../src/core/engine/index.js";
import type { Logger } from "../../../src/core/index.js";
import type { TaskStore } from "../../../src/store/index.js";

/**
 * When group commit cuts a unit (core/engine/unit-of-work.ts): at the end of the
 * second turn after it opened, or later while every turn adds writes, up to
 * four turns. Counted in check phases: the test's own immediates run right
 * after the unit's in each of them.
 */
describe("unit of work: when a unit commits", () => {
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

  function setup() {
    const log: string[] = [];
    const store = {
      beginBatch: () => log.push("begin"),
      commitBatch: () => void log.push("commit"),
      rollbackBatch: () => log.push("rollback"),
    } as unknown as TaskStore;
    const work = new UnitOfWork(store, logger);
    const commits = () => log.filter((e) => e === "commit").length;
    return { work, log, commits };
  }

  it("commits a lone write at the end of the second turn, and announces it only then", async () => {
    const { work, commits } = setup();
    let told = false;
    work.open();
    work.afterCommit(() => (told = true));
    await nextTurn();
    expect([commits(), told]).toEqual([0, false]);
    await nextTurn();
    expect([commits(), told]).toEqual([1, true]);
    expect(work.isOpen).toBe(false);
  });

  it("keeps a unit open while each turn writes, and cuts it at the fourth turn", async () => {
    const { work, commits } = setup();
    const durable: Promise<void>[] = [];
    work.open();
    durable.push(work.durable());
    for (let turn = 1; turn <= 3; turn++) {
      await nextTurn();
      expect(commits(), `after turn ${turn}`).toBe(0);
      work.open();
      durable.push(work.durable());
    }
    await nextTurn();
    // Every write of the four turns, one commit.
    expect(commits()).toBe(1);
    await Promise.all(durable);
  });

  it("commits at the first turn that wrote nothing", async () => {
    const { work, commits } = setup();
    work.open();
    await nextTurn();
    work.open();
    await nextTurn();
    expect(commits()).toBe(0);
    await nextTurn();
    expect(commits()).toBe(1);
  });

  it("a flush commits at once, and the next unit keeps its own turns", async () => {
    const { work, commits } = setup();
    work.open();
    await work.flush();
    expect(commits()).toBe(1);
    // The flushed unit's pending turn must not cut this one short.
    work.open();
    await nextTurn();
    expect(commits()).toBe(1);
    await nextTurn();
    expect(commits()).toBe(2);
  });
});
