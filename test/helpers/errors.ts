import { ConnectError, type Code } from "@connectrpc/connect";
import { expect } from "vitest";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { A2AError } from "../../src/protocol/index.js";

/** Runs `fn`, expects a ConnectError with `code` and an A2A ErrorInfo `reason`; returns the error. */
export async function expectA2AError(fn: () => Promise<unknown>, code: Code, reason: string): Promise<ConnectError> {
  let caught: unknown;
  try {
    await fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected ${reason}`).toBeInstanceOf(ConnectError);
  const err = caught as ConnectError;
  expect(err.code).toBe(code);
  const info = err.findDetails(ErrorInfoSchema);
  expect(info.map((i) => i.reason)).toEqual([reason]);
  expect(info[0]!.domain).toBe("a2a-protocol.org");
  return err;
}

/** The field names of the BadRequest detail of an error. */
export function violatedFields(err: ConnectError): string[] {
  return err.findDetails(BadRequestSchema).flatMap((b) => b.fieldViolations.map((v) => v.field));
}

/** Awaits `p`, expects it to reject with an A2AError (src/client's one error type), and returns the error. */
export async function rejection(p: Promise<unknown>): Promise<A2AError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(A2AError);
  return e as A2AError;
}
