import type { DescMessage } from "@bufbuild/protobuf";

/** A field's number, from the generated descriptor (never a copied constant). */
export function fieldNo(schema: DescMessage, localName: string): number {
  const f = schema.fields.find((x) => x.localName === localName);
  if (!f) throw new Error(`store: ${schema.typeName} has no field ${localName}`);
  return f.number;
}
