import { createHash } from "node:crypto";

/**
 * A name for each statement text: node-postgres prepares a named statement
 * once per connection and then only binds and executes it, where an
 * unnamed one is parsed and planned again on every call. The store's reads
 * (a task with its history and artifacts through correlated subqueries)
 * and the unit function's call are planned once per pooled connection.
 * The texts are the store's own constants and ListTasks' few filter
 * shapes, so the names stay few.
 */
const names = new Map<string, string>();

export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `a2a_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`));
  return name;
}
