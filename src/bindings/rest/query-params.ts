import { ScalarType, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { invalidParams } from "../../core/index.js";

/** Well-known types whose ProtoJSON is one string, so a query parameter can carry them (§11.5). */
const STRING_MESSAGES = new Set(["google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"]);

/**
 * §11.5: the query parameters of a GET or DELETE as the ProtoJSON object of
 * the request message, for `readProtoJson` to check like any body. Names are
 * the camelCase JSON names (the proto names are accepted too, as ProtoJSON
 * parsers do); booleans are `true`/`false`, numbers decimal, enums by name,
 * timestamps ISO 8601, repeated fields repeated or comma-separated. Nested
 * messages cannot be given. A value of the wrong form is InvalidParams
 * naming the parameter; an empty value counts as absent; parameters that
 * name no field (A2A-Version among them) are ignored, as unknown JSON
 * fields are (§5.7).
 */
export function queryToJson(schema: DescMessage, query: URLSearchParams): JsonObject {
  const json: JsonObject = {};
  for (const name of new Set(query.keys())) {
    const field = schema.fields.find((f) => f.jsonName === name || f.name === name);
    if (!field) continue;
    const values = query.getAll(name).filter((v) => v !== "");
    if (values.length === 0) continue;
    if (field.fieldKind === "list") {
      json[field.jsonName] = values.flatMap((v) => v.split(",")).map((v) => itemJson(field, name, v.trim()));
      continue;
    }
    if (values.length > 1) throw invalidParams(name, "is given more than once");
    json[field.jsonName] = itemJson(field, name, values[0]!);
  }
  return json;
}

/** One value of a field (or of a list's items) as ProtoJSON. */
function itemJson(field: DescField, name: string, value: string): JsonValue {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
  switch (kind) {
    case "enum":
      // By name (§11.5); readProtoJson names the parameter when the name is unknown.
      return value;
    case "scalar":
      return scalarJson(field.scalar!, name, value);
    case "message":
      if (field.message && STRING_MESSAGES.has(field.message.typeName)) return value;
      throw invalidParams(name, "is an object and cannot be a query parameter (§11.5: use a request body)");
    default:
      throw invalidParams(name, "is a map and cannot be a query parameter (§11.5: use a request body)");
  }
}

function scalarJson(scalar: ScalarType, name: string, value: string): JsonValue {
  switch (scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return value;
    case ScalarType.BOOL:
      if (value === "true") return true;
      if (value === "false") return false;
      throw invalidParams(name, `must be true or false, got ${JSON.stringify(value)}`);
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: {
      const n = Number(value);
      if (value.trim() === "" || !Number.isFinite(n)) throw invalidParams(name, `must be a decimal number, got ${JSON.stringify(value)}`);
      return n;
    }
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      // ProtoJSON writes 64-bit integers as strings; fromJson checks the range.
      if (!/^-?\d+$/.test(value)) throw invalidParams(name, `must be a decimal integer, got ${JSON.stringify(value)}`);
      return value;
    default:
      // 32-bit integers: fromJson checks the range and names the parameter.
      if (!/^-?\d+$/.test(value)) throw invalidParams(name, `must be a decimal integer, got ${JSON.stringify(value)}`);
      return Number(value);
  }
}
