/**
 * The protobuf codec the store, telemetry and the answers on the hot path
 * share: a one-pass binary writer, an in-place binary reader, and ProtoJSON
 * text written straight from binary. Below src/protocol: it knows protobuf,
 * not A2A, and imports only libraries.
 */
export { ProtoWriter, WIRE } from "./proto-writer.js";
export { MalformedProto, ProtoReader } from "./proto-reader.js";
export { wireJson, type WireJsonOptions } from "./wire-json.js";
