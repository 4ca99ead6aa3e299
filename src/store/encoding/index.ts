/** How the stores encode rows: protobuf binary sliced from each event's own bytes, metadata as JSON text (shared by SQLite and PostgreSQL, so both store the same bytes). */
export { artifactRows, creationRows, statusRows } from "./event-rows.js";
export { artifactHead, decode, decodeMetadata, encodeMetadata, expectRow, statusMs } from "./row-codecs.js";
export { deliveryOf, deliveryStateOf, type DeliveryStateRow, type DueDeliveryRow } from "./push-rows.js";
export { PackedRun, PackedRuns, unpackRows } from "./packed-rows.js";
export { taskWire, type ArtifactPieces, type TaskPieces } from "./task-wire.js";
