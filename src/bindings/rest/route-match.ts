import { decode, matchTemplate, templateVerbs, type PathTemplate } from "./path-template.js";
import { REST_ROUTES, type RestRoute } from "./rest-routes.js";

/** What a path and method select (of the v1.0 routes, or another route table). */
export type RouteMatch<R = RestRoute> =
  | { readonly kind: "found"; readonly route: R; readonly fields: Readonly<Record<string, string>> }
  /** The path is a route's, the method is not: RFC 9110 §15.5.6 lists the allowed ones. */
  | { readonly kind: "wrongMethod"; readonly allow: readonly string[] }
  | { readonly kind: "notFound" };

const VERBS = templateVerbs(REST_ROUTES.map((r) => r.template));

/**
 * Finds the route of a path relative to the binding's base ("/tasks/t-1").
 * The path is tried as it is first, then with its first segment as the
 * `/{tenant}` prefix (§11.3 via the proto's additional bindings), so
 * `/tasks/tasks` is task "tasks" and `/acme/tasks` lists tenant acme's
 * tasks. Empty segments (`//`, a trailing `/`) match nothing.
 */
export function matchRoute(method: string, path: string): RouteMatch {
  const segments = path.replace(/^\//, "").split("/");
  if (segments.some((s) => s === "")) return { kind: "notFound" };
  const plain = matchSegments(method, segments, {});
  if (plain.kind !== "notFound" || segments.length < 2) return plain;
  const tenant = decode(segments[0]!);
  if (!tenant) return plain;
  return matchSegments(method, segments.slice(1), { tenant });
}

function matchSegments(method: string, segments: readonly string[], prefix: Readonly<Record<string, string>>): RouteMatch {
  return matchAmong(REST_ROUTES, VERBS, method, segments, prefix);
}

/** The first of `routes` whose template matches the segments, with the path's fields over `prefix`; else which methods the path has. */
export function matchAmong<R extends { readonly method: string; readonly template: PathTemplate }>(
  routes: readonly R[],
  verbs: ReadonlySet<string>,
  method: string,
  segments: readonly string[],
  prefix: Readonly<Record<string, string>> = {},
): RouteMatch<R> {
  const allow: string[] = [];
  for (const route of routes) {
    const fields = matchTemplate(route.template, segments, verbs);
    if (fields === undefined) continue;
    if (route.method === method) return { kind: "found", route, fields: Object.assign({}, prefix, fields) };
    if (!allow.includes(route.method)) allow.push(route.method);
  }
  return allow.length > 0 ? { kind: "wrongMethod", allow } : { kind: "notFound" };
}
