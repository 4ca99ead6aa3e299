/** What a row that failed says in the report: the error's first four lines on one line. */
export function failureNote(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n").slice(0, 4).join(" | ");
}
