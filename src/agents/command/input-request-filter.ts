/** The stdout line a command prints to ask for input (see README "The command agent"). */
export const INPUT_REQUIRED_MARKER = "A2A-INPUT-REQUIRED:";

/**
 * Takes the `A2A-INPUT-REQUIRED: <question>` lines out of a program's
 * stdout as it streams: only a whole line that starts with the marker
 * counts; a line start that could still become one is held back until its
 * newline (or the end) shows which it is. Everything else passes through
 * unchanged and at once.
 */
export class InputRequestFilter {
  private held = "";
  private atLineStart = true;
  /** The question of the last marker line seen. */
  question: string | undefined;

  /** The text to pass on for a chunk of stdout. */
  push(text: string): string {
    let out = "";
    let buf = this.held + text;
    this.held = "";
    while (buf.length > 0) {
      const nl = buf.indexOf("\n");
      if (!this.atLineStart) {
        if (nl < 0) return out + buf;
        out += buf.slice(0, nl + 1);
        buf = buf.slice(nl + 1);
        this.atLineStart = true;
        continue;
      }
      if (nl < 0) {
        if (INPUT_REQUIRED_MARKER.startsWith(buf) || buf.startsWith(INPUT_REQUIRED_MARKER)) {
          this.held = buf;
          return out;
        }
        this.atLineStart = false;
        return out + buf;
      }
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!this.take(line)) out += `${line}\n`;
    }
    return out;
  }

  /** At the end of the output: what is still held back, unless it was a marker line. */
  flush(): string {
    const rest = this.held;
    this.held = "";
    return this.take(rest) ? "" : rest;
  }

  private take(line: string): boolean {
    if (!line.startsWith(INPUT_REQUIRED_MARKER)) return false;
    this.question = line.slice(INPUT_REQUIRED_MARKER.length).replace(/\r$/, "").trim();
    return true;
  }
}
