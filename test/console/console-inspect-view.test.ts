import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startSdkAgent, type SdkAgent } from "../fixtures/sdk-agent.js";
import { hasChromium, launchChromium, screenshot } from "../helpers/console-browser.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOKEN = "agent-token-0123456789";

/** Opens the console on an agent, as a shared link would, with the token typed for it. */
async function inspectAgent(page: Page, hub: TestHub, url: string, token = ""): Promise<void> {
  await page.goto(`${hub.url}console?agent=${encodeURIComponent(url)}`);
  await page.locator("section.card.inspected").waitFor();
  if (token) {
    await page.getByLabel("Token for this agent").fill(token);
    await page.getByRole("button", { name: "Inspect" }).click();
    await page.locator("section.card.inspected").waitFor();
  }
}

async function pickInterface(page: Page, label: RegExp): Promise<void> {
  const select = page.getByLabel("Interface");
  const option = (await select.locator("option").allTextContents()).find((t) => label.test(t));
  expect(option, `no interface ${label}`).toBeDefined();
  await select.selectOption({ label: option! });
}

async function say(page: Page, text: string): Promise<void> {
  const turns = await page.locator(".turn").count();
  await page.getByLabel("Message", { exact: true }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await page.locator(`.turn[data-turn="${turns + 1}"]`).waitFor();
  await page.getByRole("button", { name: "Send", exact: true }).and(page.locator(":not([disabled])")).waitFor();
}

describe.skipIf(!hasChromium)("the console's Inspect view", () => {
  let hub: TestHub;
  let guarded: TestHub;
  let other: TestHub;
  let sdk: SdkAgent;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    // The agents inspected are on loopback, which this hub's operator allows (as for push webhooks).
    hub = await startTestHub({ push: { allowCidrs: ["127.0.0.0/8"] } });
    guarded = await startTestHub();
    other = await startTestHub(tenantHubOptions({ bob: TOKEN }, [{ id: "echo" }]));
    sdk = await startSdkAgent({ token: TOKEN });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([hub?.stop(), guarded?.stop(), other?.stop(), sdk?.stop()]);
  });

  it("opens on an @a2a-js/sdk agent from /console?agent=<URL>, checks its card and chats over JSON-RPC and REST with its token", async () => {
    await inspectAgent(page, hub, sdk.url, TOKEN);
    const card = page.locator("section.card.inspected");
    expect(await card.locator("h2").textContent()).toContain("sdk test agent");
    expect(await card.getAttribute("data-card-version")).toBe("1.0");
    expect(await card.locator(".problem-status").getAttribute("data-problems")).toBe("0");
    expect(await card.locator(".signature").getAttribute("data-signature")).toBe("unsigned");
    // The token stays in this tab's session storage, not in the page's URL.
    expect(page.url()).not.toContain(TOKEN);
    for (const [n, binding, name] of [[1, /^JSONRPC 1\.0/, "JSON-RPC"], [2, /^HTTP\+JSON 1\.0/, "REST"]] as const) {
      await pickInterface(page, binding);
      await say(page, `hello over ${name}`);
      const turn = page.locator(`.turn[data-turn="${n}"]`);
      await turn.locator('.badge[data-state="COMPLETED"]').waitFor();
      expect(await turn.locator(".artifact pre").first().textContent()).toBe(`hello over ${name}`);
    }
    expect(sdk.received.length).toBe(2);
    expect(sdk.received.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(errors).toEqual([]);
  });

  it("shows each HTTP exchange in the raw pane: method, URL, status, headers with the token masked, timing and SSE event ids", async () => {
    const exchange = page.locator('.call[data-operation="stream"] .exchange').last();
    expect(await exchange.getAttribute("data-status")).toBe("200");
    expect(await exchange.locator(".ex-line code").textContent()).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/rest\/message:stream$/);
    expect(await exchange.locator(".timing").textContent()).toMatch(/\d+ ms to head, \d+ ms in all/);
    await exchange.getByText("Headers and body").click();
    const text = (await exchange.textContent())!;
    expect(text).toContain("authorizationBearer •••• (22 chars)");
    expect(text).not.toContain(TOKEN);
    expect(text).toContain("text/event-stream");
    expect(await page.locator(".raw-pane").textContent()).not.toContain(TOKEN);
    await screenshot(page, "console-inspect");
  });

  it("chats with a second hub over gRPC, showing grpc-status and trailers, and over JSON-RPC with SSE event ids", async () => {
    await inspectAgent(page, hub, other.url, TOKEN);
    await pickInterface(page, /^GRPC 1\.0/);
    await say(page, "hello over grpc");
    await page.locator('.turn[data-turn="1"] .badge[data-state="COMPLETED"]').waitFor();
    const grpc = page.locator(".call").last().locator(".exchange").last();
    await expect.poll(() => grpc.getAttribute("data-grpc-status")).toBe("OK");
    await grpc.getByText("Headers and body").click();
    expect(await grpc.locator("h4").allTextContents()).toContain("Trailers");
    await pickInterface(page, /^JSONRPC 1\.0/);
    await say(page, "hello over json-rpc");
    await page.locator('.turn[data-turn="2"] .badge[data-state="COMPLETED"]').waitFor();
    await expect.poll(() => page.locator(".call").last().locator(".sse-ids").textContent()).toMatch(/SSE event ids: \S+/);
  });

  it("renders a three-turn conversation: every turn's message and artifacts in order, in one context", async () => {
    await page.getByRole("button", { name: "New conversation" }).click();
    for (const t of ["one", "two", "three"]) await say(page, `turn ${t}`);
    const turns = page.locator(".turn");
    expect(await turns.count()).toBe(3);
    for (const [i, t] of ["one", "two", "three"].entries()) {
      const turn = turns.nth(i);
      await turn.locator('.badge[data-state="COMPLETED"]').waitFor();
      expect(await turn.locator(".message.user pre").textContent()).toBe(`turn ${t}`);
      expect(await turn.locator(".artifact pre").textContent()).toBe(`turn ${t}`);
    }
    // Turns two and three were sent in the first turn's context.
    const contexts = await page.locator(".call").evaluateAll((calls) => calls.map((c) => c.querySelector(".request-body")?.textContent ?? ""));
    const ids = contexts.slice(-3).map((b) => (/"contextId": "([^"]+)"/.exec(b) ?? [])[1]);
    expect(ids[0]).toBeUndefined();
    expect(ids[1]).toBeDefined();
    expect(ids[2]).toBe(ids[1]);
    await screenshot(page, "console-inspect-conversation");
  });

  it("edits a sent request as JSON and replays it with a new messageId", async () => {
    const before = await page.locator(".turn").count();
    const call = page.locator(".call").last();
    await call.getByRole("button", { name: "Edit and replay" }).click();
    const editor = call.getByRole("textbox");
    const body = JSON.parse(await editor.inputValue());
    const oldId = body.request.message.messageId;
    body.request.message.parts = [{ text: "replayed, edited" }];
    await editor.fill(JSON.stringify(body));
    expect(await call.getByLabel("New messageId").isChecked()).toBe(true);
    await call.getByRole("button", { name: "Send again" }).click();
    const turn = page.locator(`.turn[data-turn="${before + 1}"]`);
    await turn.locator('.badge[data-state="COMPLETED"]').waitFor();
    expect(await turn.locator(".artifact pre").textContent()).toBe("replayed, edited");
    await page.locator(".call").last().getByText("Headers and body").first().click();
    const sent = JSON.parse((await page.locator(".call").last().locator(".request-body").first().textContent())!);
    const messageId = sent.params?.message?.messageId ?? sent.message?.messageId;
    expect(messageId).toBeTruthy();
    expect(messageId).not.toBe(oldId);
  });

  it("marks a message the agent refused as refused", async () => {
    await page.getByLabel("Token for this agent").fill("");
    await page.getByRole("button", { name: "Inspect" }).click();
    await page.locator("section.card.inspected").waitFor();
    await say(page, "without a token");
    const turn = page.locator('.turn[data-turn="1"]');
    await turn.locator(".message.refused").waitFor();
    expect(await turn.locator(".refusal").textContent()).toMatch(/^Refused: /);
  });

  it("checks a v0.3 card against v0.3's required fields", async () => {
    const v03 = { name: "legacy", url: "http://127.0.0.1:1/rpc", version: "1", protocolVersion: "0.3.0", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [] };
    const server = createServer((_, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(v03))).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      await inspectAgent(page, hub, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const card = page.locator("section.card.inspected");
      expect(await card.getAttribute("data-card-version")).toBe("0.3");
      expect(await card.locator(".problems li").allTextContents()).toEqual(["description is missing"]);
    } finally {
      server.close();
    }
  });

  it("shows the guard's refusal when the hub does not allow private addresses (its default)", async () => {
    await page.goto(`${guarded.url}console?agent=${encodeURIComponent(sdk.url)}`);
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.first().textContent()).toMatch(/refused address: 127\.0\.0\.1 is in a private, loopback/);
    expect(await page.locator("section.card.inspected").count()).toBe(0);
    expect(await page.locator(".exchange.failed").count()).toBe(1);
  });
});
