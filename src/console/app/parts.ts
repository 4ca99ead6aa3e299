import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Role, TaskState, type Artifact, type Message, type Part } from "../../../gen/a2a/v1/a2a_pb.js";
import { stateName } from "../../protocol/index.js";
import { h, json, type Child } from "./dom.js";

/** A state badge; its text is the state, so color is never the only signal. */
export function stateBadge(s: TaskState | undefined): HTMLElement {
  const name = stateName(s, "short");
  return h("span", { class: `badge state-${name.toLowerCase()}`, "data-state": name }, name);
}

/** One part: text as text, data as JSON, files as a download link (bytes) or a link (URL). */
export function renderPart(p: Part): Child {
  const c = p.content;
  switch (c.case) {
    case "text":
      return h("pre", { class: "part text" }, c.value);
    case "data":
      return h("pre", { class: "part data", "aria-label": "data part (JSON)" }, json(toJson(ValueSchema, c.value)));
    case "raw": {
      const name = p.filename || "download";
      const href = URL.createObjectURL(new Blob([c.value as Uint8Array<ArrayBuffer>], { type: p.mediaType || "application/octet-stream" }));
      return h("p", { class: "part file" }, h("a", { href, download: name }, `Download ${name}`), ` (${p.mediaType || "bytes"}, ${c.value.length} bytes)`);
    }
    case "url":
      return h("p", { class: "part file" }, h("a", { href: c.value, rel: "noopener noreferrer", target: "_blank" }, p.filename || c.value), p.mediaType ? ` (${p.mediaType})` : "");
    default:
      return h("p", { class: "part" }, "(empty part)");
  }
}

/** A message with its role. */
export function renderMessage(m: Message): HTMLElement {
  const role = m.role === Role.AGENT ? "agent" : m.role === Role.USER ? "user" : "unknown";
  return h("article", { class: `message ${role}`, "aria-label": `${role} message` }, h("header", {}, role), m.parts.map(renderPart));
}

/** An artifact with its parts; `updates` counts the events that built it (appends included). */
export function renderArtifact(a: Artifact, updates?: number): HTMLElement {
  return h(
    "section",
    { class: "artifact", "data-artifact-id": a.artifactId, "data-updates": updates, "aria-label": `artifact ${a.name || a.artifactId}` },
    h("h4", {}, a.name || a.artifactId, updates ? h("small", {}, ` · ${updates} update${updates === 1 ? "" : "s"}`) : null),
    a.description ? h("p", {}, a.description) : null,
    a.parts.map(renderPart),
  );
}

/** A timestamp as local date and time. */
export function when(t: { seconds: bigint; nanos: number } | undefined): string {
  return t ? new Date(Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6)).toLocaleString() : "";
}

/** §3.2.4: append adds the parts to the artifact with that id; otherwise the artifact is replaced. */
export function mergeArtifact(list: Artifact[], a: Artifact, append: boolean): void {
  const i = list.findIndex((x) => x.artifactId === a.artifactId);
  if (i < 0 || !append) {
    if (i < 0) list.push(a);
    else list[i] = a;
    return;
  }
  const have = list[i]!;
  for (const part of a.parts) {
    const last = have.parts[have.parts.length - 1];
    // Text appended to text reads as one text: shown joined, as the agent streamed it.
    if (last && last.content.case === "text" && part.content.case === "text" && last.mediaType === part.mediaType) last.content.value += part.content.value;
    else have.parts.push(part);
  }
}
