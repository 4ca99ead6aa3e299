import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preferredJsonType } from "../../../src/bindings/rest/index.js";
import { rest, sendText } from "../../helpers/rest.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

/*
 * §11.1/§14.1: REST answers in the JSON media type the request's Accept
 * prefers. Clients disagree on application/json and application/a2a+json;
 * the body is the same, only the label follows the client. Problem details
 * (RFC 9457) only when asked for.
 */

/** Accept header → the Content-Type of a result and of a §11.6 error body. */
const FORMS: Array<[string, string | undefined, string, string]> = [
  ["no Accept", undefined, "application/json", "application/json"],
  ["*/*", "*/*", "application/json", "application/json"],
  ["application/*", "application/*", "application/json", "application/json"],
  ["application/json", "application/json", "application/json", "application/json"],
  ["application/a2a+json", "application/a2a+json", "application/a2a+json", "application/a2a+json"],
  ["a2a+json first, json second", "application/a2a+json, application/json", "application/a2a+json", "application/a2a+json"],
  ["json first, a2a+json second", "application/json, application/a2a+json", "application/json", "application/json"],
  ["json preferred by quality", "application/a2a+json;q=0.5, application/json", "application/json", "application/json"],
  ["a2a+json preferred by quality", "application/json;q=0.4, application/a2a+json;q=0.9", "application/a2a+json", "application/a2a+json"],
  ["a2a+json beside a wildcard", "*/*;q=0.1, application/a2a+json", "application/a2a+json", "application/a2a+json"],
  ["a type that names neither", "text/html", "application/json", "application/json"],
  ["problem+json asked for", "application/problem+json", "application/json", "application/problem+json"],
  ["problem+json over a2a+json", "application/problem+json, application/a2a+json;q=0.5", "application/a2a+json", "application/problem+json"],
];

let t: TestHub;
let taskId = "";
beforeAll(async () => {
  t = await startTestHub();
  taskId = (await sendText(t.url, "done")).id;
});
afterAll(async () => {
  await t.stop();
});

describe("the REST response media type follows Accept (§11.1, §14.1)", () => {
  it.each(FORMS)("%s: results and errors are labelled as the client prefers", async (_, accept, resultType, errorType) => {
    const headers: Record<string, string> = accept === undefined ? {} : { accept };
    const ok = await rest(t.url, "GET", `/tasks/${taskId}`, { headers });
    expect(ok.status).toBe(200);
    expect(ok.type).toBe(resultType);
    expect(ok.json.id).toBe(taskId);
    expect(ok.headers.get("vary")).toContain("Accept");
    const missing = await rest(t.url, "GET", "/tasks/no-such-task", { headers });
    expect(missing.status).toBe(404);
    expect(missing.type).toBe(errorType);
    if (errorType === "application/problem+json") expect(missing.json).toMatchObject({ status: 404, reason: "TASK_NOT_FOUND" });
    else expect(missing.json.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  it("reads either type the same in the unit that picks it", () => {
    expect(preferredJsonType(undefined)).toBe("application/json");
    expect(preferredJsonType("application/a2a+json;q=0")).toBe("application/json");
    expect(preferredJsonType("APPLICATION/A2A+JSON")).toBe("application/a2a+json");
  });
});
