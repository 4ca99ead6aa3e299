import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Browser, Page } from "playwright-core";
import { EchoAgent, echoCard } from "../../src/index.js";
import { hasChromium, launchChromium, screenshot } from "../helpers/console-browser.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const IDS = ["echo", "billing", "calendar", "search", "translate", "weather"];

describe.skipIf(!hasChromium)("the console's lists on a hub with many agents", () => {
  let th: TestHub;
  let browser: Browser;
  let page: Page;
  const icons: string[] = [];

  beforeAll(async () => {
    th = await startTestHub({
      agents: IDS.map((id) => {
        const card = echoCard();
        card.name = `${id} agent`;
        card.description = `Answers ${id} questions by echoing them.`;
        // An install without internet: the provider's site does not answer (nothing listens on port 1).
        card.provider!.url = "http://127.0.0.1:1/";
        card.documentationUrl = "";
        return { id, executor: new EchoAgent(), card };
      }),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.on("response", (r) => r.url().includes("favicon") && icons.push(`${r.status()} ${new URL(r.url()).pathname}`));
  });
  afterAll(async () => {
    await browser?.close();
    await th?.stop();
  });

  it("lists many agents compactly, one line each, with their cards folded until a name is chosen", async () => {
    await page.goto(`${th.url}console/#/agents`);
    const rows = page.locator("table.agent-list tbody tr");
    await rows.first().waitFor();
    expect(await rows.evaluateAll((r) => r.map((x) => (x as HTMLElement).dataset.agent))).toEqual(IDS);
    expect(await rows.nth(1).locator("td.preview").textContent()).toBe("Answers billing questions by echoing them.");
    expect(await page.locator("details.card-fold[open]").count()).toBe(0);
    await rows.nth(2).getByRole("link", { name: "calendar agent" }).click();
    expect(await page.locator("details#card-calendar").getAttribute("open")).not.toBeNull();
    await screenshot(page, "console-agents-compact");
  });

  it("says a provider URL that does not answer is not checked offline, and counts it as no card problem", async () => {
    const card = page.locator('section.card[data-agent="calendar"]');
    await expect.poll(() => card.locator(".problem-status").getAttribute("data-problems")).toBe("0");
    expect(await card.locator(".notes li").textContent()).toMatch(/^provider\.url http:\/\/127\.0\.0\.1:1\/: not checked offline/);
    expect(await card.locator(".problems li").count()).toBe(0);
  });

  it("previews each task by the first words of its first message, and shows Cancel only on an unfinished task", async () => {
    const client = th.client("connect-h1");
    const long = "please summarise the quarterly billing report for the northern region and list every overdue invoice";
    const done = taskOf(await client.sendMessage({ ...textRequest(long), tenant: "billing" }));
    const slow = taskOf(await client.sendMessage({ ...textRequest("slow 60000", { configuration: { returnImmediately: true } }), tenant: "billing" }));
    await page.goto(`${th.url}console/#/tasks/billing`);
    await page.locator(`tr[data-task-id="${done.id}"]`).waitFor();
    const preview = (await page.locator(`tr[data-task-id="${done.id}"] td.preview`).textContent())!;
    expect(preview.endsWith("…")).toBe(true);
    expect(long.startsWith(preview.slice(0, -1))).toBe(true);
    expect(await page.locator(`tr[data-task-id="${slow.id}"] td.preview`).textContent()).toBe("slow 60000");
    await screenshot(page, "console-tasks-previews");
    await page.goto(`${th.url}console/#/task/billing/${done.id}`);
    await page.locator("h1 code").waitFor();
    expect(await page.getByRole("button", { name: "Cancel task" }).count()).toBe(0);
    await page.goto(`${th.url}console/#/task/billing/${slow.id}`);
    await page.locator("h1 code").waitFor();
    await page.getByRole("button", { name: "Cancel task" }).click();
    await page.locator('[role="status"] .badge[data-state="CANCELED"]').waitFor();
    expect(await page.getByRole("button", { name: "Cancel task" }).count()).toBe(0);
  });

  it("fetches the page's icon without a 404", async () => {
    expect(icons.length).toBeGreaterThan(0);
    expect(new Set(icons)).toEqual(new Set(["200 /console/favicon.svg"]));
  });
});
