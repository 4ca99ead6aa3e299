import { create, ScalarType, toJson, type DescField, type DescMessage, type JsonObject, type JsonValue, type MessageShape } from "@bufbuild/protobuf";

/** Which fields fill adds to a message's JSON, and which it walks into. */
interface EmissionPlan {
  /** The always-emitted fields, in declaration order. */
  readonly required: readonly DescField[];
  /** Message, list-of-message and map-of-message fields whose type holds an always-emitted field somewhere below. */
  readonly nested: readonly DescField[];
}

/**
 * Fields a ProtoJSON writer puts in every answer even when they hold their
 * zero value, which toJson leaves out, named by full field name
 * (`package.Message.field`). Which fields those are is the protocol's to
 * say (src/protocol/proto-json.ts); this puts them in, on a JSON object
 * or, through their zero values' text, on JSON written from binary.
 */
export class AlwaysEmitted {
  private readonly names: ReadonlySet<string>;
  /**
   * Worked out once per message type, so that writing an event costs one
   * walk of the JSON where a required field can be missing, and nothing
   * below a type that has none (an artifact's parts, say).
   */
  private readonly plans = new Map<string, EmissionPlan>();

  constructor(fullNames: Iterable<string>) {
    this.names = new Set(fullNames);
  }

  /** toJson of a message, with the always-emitted fields present even at their default. */
  toJson<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): JsonObject {
    const json = toJson(schema, message) as JsonObject;
    this.fill(schema, json);
    return json;
  }

  /** The always-emitted fields of a message type, in declaration order (the order fill adds them in). */
  fieldsOf(desc: DescMessage): readonly DescField[] {
    return this.planOf(desc).required;
  }

  /** The ProtoJSON text of a field holding its zero value, as fill writes it. */
  zeroText(field: DescField): string {
    return JSON.stringify(this.zeroJson(field));
  }

  /**
   * Puts the always-emitted fields toJson left out back into `json`. It
   * walks the JSON, not the message: the JSON has every value that is set,
   * and a missing key is a field at its default. Only the types that can
   * hold such a field are walked (a stream sends thousands of artifact
   * chunks whose parts hold none).
   */
  fill(desc: DescMessage, json: JsonObject): void {
    const plan = this.planOf(desc);
    for (const field of plan.required) if (json[field.jsonName] === undefined) json[field.jsonName] = this.zeroJson(field);
    for (const field of plan.nested) {
      const value = json[field.jsonName];
      if (value === undefined) continue;
      const child = (field as DescField & { message: DescMessage }).message;
      if (field.fieldKind === "message") {
        if (isObject(value)) this.fill(child, value);
      } else if (field.fieldKind === "list") {
        if (Array.isArray(value)) for (const item of value) if (isObject(item)) this.fill(child, item);
      } else if (isObject(value)) {
        for (const item of Object.values(value)) if (isObject(item)) this.fill(child, item);
      }
    }
  }

  private planOf(desc: DescMessage): EmissionPlan {
    let plan = this.plans.get(desc.typeName);
    if (plan) return plan;
    const required = desc.fields.filter((f) => this.names.has(`${desc.typeName}.${f.name}`));
    const nested = desc.fields.filter((f) => {
      const child = messageOf(f);
      return child !== undefined && !isWellKnown(child) && this.holdsRequired(child, new Set());
    });
    plan = { required, nested };
    this.plans.set(desc.typeName, plan);
    return plan;
  }

  /** Whether a message type or one below it has an always-emitted field; a type met again on the way down adds nothing new. */
  private holdsRequired(desc: DescMessage, seen: Set<string>): boolean {
    if (seen.has(desc.typeName)) return false;
    seen.add(desc.typeName);
    for (const f of desc.fields) {
      if (this.names.has(`${desc.typeName}.${f.name}`)) return true;
      const child = messageOf(f);
      if (child && !isWellKnown(child) && this.holdsRequired(child, seen)) return true;
    }
    return false;
  }

  /** The ProtoJSON of a field holding its zero value. */
  private zeroJson(field: DescField): JsonValue {
    switch (field.fieldKind) {
      case "list":
        return [];
      case "map":
        return {};
      case "enum":
        return field.enum.values.find((v) => v.number === 0)?.name ?? 0;
      case "message":
        return this.toJson(field.message, create(field.message));
      case "scalar":
        switch (field.scalar) {
          case ScalarType.STRING:
          case ScalarType.BYTES:
            return "";
          case ScalarType.BOOL:
            return false;
          case ScalarType.INT64:
          case ScalarType.UINT64:
          case ScalarType.SINT64:
          case ScalarType.FIXED64:
          case ScalarType.SFIXED64:
            return "0";
          default:
            return 0;
        }
    }
  }
}

/** The message type a field holds, alone, in a list or as map values. */
function messageOf(f: DescField): DescMessage | undefined {
  if (f.fieldKind === "message") return f.message;
  if (f.fieldKind === "list" && f.listKind === "message") return f.message;
  if (f.fieldKind === "map" && f.mapKind === "message") return f.message;
  return undefined;
}

/** google.protobuf.* types have their own JSON forms (Struct, Value, Timestamp…): not walked. */
export function isWellKnown(desc: DescMessage): boolean {
  return desc.typeName.startsWith("google.protobuf.");
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
