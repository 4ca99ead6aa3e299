/**
 * The protobuf codec the store, telemetry and the answers on the hot path
 * share: a one-pass binary writer, an in-place binary reader, and ProtoJSON
 * text written straight from binary. Below src/protocol: it knows
 * protobuf, not A2A (which fields A2A always writes is protocol's to say),
 * and imports only libraries.
 */
export { AlwaysEmitted, isWellKnown } from "./always-emitted.js";
export { jsonFromBinary } from "./json-from-binary.js";
export { MalformedProto, ProtoReader } from "./proto-reader.js";
export { ProtoWriter, WIRE } from "./proto-writer.js";
