/**
 * §11.3 path templates, in the google.api.http style the A2A proto uses:
 * literal segments, `{field}` segments that bind a request field (named by
 * its ProtoJSON name), and a custom verb after the last segment
 * (`/tasks/{id}:cancel`).
 */

type Segment = { readonly literal: string } | { readonly field: string; readonly verb?: string };

/** A compiled path template. */
export interface PathTemplate {
  readonly source: string;
  readonly segments: readonly Segment[];
}

/** Compiles "/tasks/{taskId}/pushNotificationConfigs/{id}" and the like. */
export function compileTemplate(source: string): PathTemplate {
  const segments = source
    .replace(/^\//, "")
    .split("/")
    .map((s): Segment => {
      const m = /^\{(\w+)\}(?::(\w+))?$/.exec(s);
      if (!m) return { literal: s };
      return m[2] === undefined ? { field: m[1]! } : { field: m[1]!, verb: m[2] };
    });
  return { source, segments };
}

/** The custom verbs of a set of templates: a `{field}` segment never swallows one. */
export function templateVerbs(templates: readonly PathTemplate[]): ReadonlySet<string> {
  const verbs = new Set<string>();
  for (const t of templates) for (const s of t.segments) if ("verb" in s && s.verb !== undefined) verbs.add(s.verb);
  return verbs;
}

/**
 * Matches raw (still percent-encoded) path segments against a template and
 * returns the bound fields, decoded; undefined when it does not match. A
 * verb is recognised only after a literal ':' (an encoded %3A belongs to
 * the id), and only when it is one of `verbs`, so that ids such as
 * "urn:uuid:…" work unencoded while `/tasks/x:cancel` is never task "x:cancel".
 */
export function matchTemplate(template: PathTemplate, raw: readonly string[], verbs: ReadonlySet<string>): Record<string, string> | undefined {
  if (raw.length !== template.segments.length) return undefined;
  const fields: Record<string, string> = {};
  for (let i = 0; i < raw.length; i++) {
    const seg = template.segments[i]!;
    const text = raw[i]!;
    if ("literal" in seg) {
      if (decode(text) !== seg.literal) return undefined;
      continue;
    }
    const colon = text.lastIndexOf(":");
    const verb = colon >= 0 ? text.slice(colon + 1) : undefined;
    let value: string | undefined;
    if (seg.verb !== undefined) {
      if (verb !== seg.verb) return undefined;
      value = decode(text.slice(0, colon));
    } else {
      if (verb !== undefined && verbs.has(verb)) return undefined;
      value = decode(text);
    }
    if (!value) return undefined;
    fields[seg.field] = value;
  }
  return fields;
}

/** Percent-decodes one segment; malformed encoding matches nothing. */
export function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
