import { create, toJson, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { BadRequestSchema, ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { A2A_ERROR_DOMAIN, type A2AError, type FieldViolation } from "../../core/index.js";

/** One entry of a details array: a message in the ProtoJSON `Any` form, tagged with "@type" (§3.3.2). */
export type ErrorDetail = JsonObject & { "@type": string };

function anyJson(schema: DescMessage, value: JsonValue): ErrorDetail {
  return { "@type": `type.googleapis.com/${schema.typeName}`, ...(value as JsonObject) };
}

/** §10.6: google.rpc.ErrorInfo with the table's reason, domain a2a-protocol.org and the error's metadata. */
export function errorInfoDetail(e: A2AError): ErrorDetail {
  const info = create(ErrorInfoSchema, { reason: e.row.reason, domain: A2A_ERROR_DOMAIN, metadata: { ...e.metadata } });
  return anyJson(ErrorInfoSchema, toJson(ErrorInfoSchema, info));
}

/** §9.5: google.rpc.BadRequest naming each invalid field. */
export function badRequestDetail(violations: readonly FieldViolation[]): ErrorDetail {
  const br = create(BadRequestSchema, { fieldViolations: violations.map((v) => ({ field: v.field, description: v.description })) });
  return anyJson(BadRequestSchema, toJson(BadRequestSchema, br));
}

/**
 * The details of an A2AError for a JSON body: InvalidParams carries the
 * google.rpc.BadRequest of §9.5; every A2A error of §5.4 carries an ErrorInfo
 * (plus a BadRequest when it names fields, e.g. ContentTypeNotSupported);
 * Internal carries nothing, so no internals reach the client.
 */
export function errorDetails(e: A2AError): ErrorDetail[] {
  if (e.a2a === "Internal") return [];
  if (e.a2a === "InvalidParams") return e.violations.length > 0 ? [badRequestDetail(e.violations)] : [];
  const details = [errorInfoDetail(e)];
  if (e.violations.length > 0) details.push(badRequestDetail(e.violations));
  return details;
}
