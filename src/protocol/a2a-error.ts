import { errorRow, type A2AErrorName, type ErrorRow } from "./error-table.js";

/** One invalid request field, named by its dotted ProtoJSON path (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** Options of an A2AError beyond its name and message. */
export interface A2AErrorOptions {
  /** Invalid fields, for InvalidParams and ContentTypeNotSupported. */
  readonly violations?: readonly FieldViolation[];
  /** Extra context for google.rpc.ErrorInfo.metadata (e.g. taskId). */
  readonly metadata?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/**
 * The one error type core code throws. It names the A2A error; each binding
 * maps it through ERROR_TABLE and nothing else.
 */
export class A2AError extends Error {
  override readonly name = "A2AError";
  readonly violations: readonly FieldViolation[];
  readonly metadata: Readonly<Record<string, string>>;

  constructor(
    readonly a2a: A2AErrorName,
    message: string,
    options: A2AErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.violations = options.violations ?? [];
    this.metadata = options.metadata ?? {};
  }

  /** This error's row of the binding table. */
  get row(): ErrorRow {
    return errorRow(this.a2a);
  }
}

/** InvalidParams naming one field, as §3.3.2 asks ("which parameter failed and why"). */
export function invalidParams(field: string, description: string): A2AError {
  return new A2AError("InvalidParams", `${field}: ${description}`, { violations: [{ field, description }] });
}

/** TaskNotFound for a task id; also what a task of another tenant looks like (§13.1). */
export function taskNotFound(taskId: string): A2AError {
  return new A2AError("TaskNotFound", `task ${JSON.stringify(taskId)} not found`, { metadata: { taskId } });
}

/** Narrows unknown errors; anything that is not an A2AError is an internal failure. */
export function isA2AError(e: unknown): e is A2AError {
  return e instanceof A2AError;
}
