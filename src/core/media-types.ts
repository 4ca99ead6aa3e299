import type { Part } from "../../gen/a2a/v1/a2a_pb.js";

/** The media type a part carries, or the one its content implies; undefined when unknowable. */
export function effectiveMediaType(part: Part): string | undefined {
  if (part.mediaType) return part.mediaType;
  switch (part.content.case) {
    case "text":
      return "text/plain";
    case "data":
      return "application/json";
    default:
      return undefined;
  }
}

function essence(mediaType: string): string {
  return mediaType.split(";")[0]!.trim().toLowerCase();
}

/** Whether `mediaType` is one of `accepted`, honouring `type/*` and `*\/*` wildcards on either side. */
export function mediaTypeAccepted(mediaType: string, accepted: readonly string[]): boolean {
  const [type, sub] = essence(mediaType).split("/");
  return accepted.some((a) => {
    const [at, as] = essence(a).split("/");
    if (at === "*" || type === "*") return true;
    return at === type && (as === "*" || sub === "*" || as === sub);
  });
}
