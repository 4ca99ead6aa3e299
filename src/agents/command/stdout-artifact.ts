import type { EventSink } from "../../execution/index.js";

/** The artifact a command's stdout becomes. */
export const OUTPUT_ARTIFACT_ID = "output";

/** How long a chunk is held back waiting for the next, so that usually the real last chunk carries lastChunk. */
const HOLD_MS = 50;

/**
 * Streams a program's stdout as append chunks of one artifact (§4.2.2):
 * each chunk is sent once the next one arrives or after a short pause, and
 * the chunk left at the end carries `lastChunk` (an empty one when the
 * program had fallen silent before it exited). A run that continues a task
 * appends to the artifact the earlier runs began.
 */
export class StdoutArtifact {
  private pending: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private started: boolean;

  constructor(
    private readonly events: EventSink,
    /** The artifact already exists (an earlier run of the task wrote it). */
    resume: boolean,
  ) {
    this.started = resume;
  }

  /** Takes the next piece of output. */
  write(text: string): void {
    if (text === "") return;
    if (this.pending !== undefined) this.emit(this.pending, false);
    this.pending = text;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), HOLD_MS);
  }

  /** Sends what is held back, leaving the artifact open (the task continues later). */
  flush(): void {
    clearTimeout(this.timer);
    if (this.pending !== undefined) this.emit(this.pending, false);
    this.pending = undefined;
  }

  /** Seals the artifact: the last chunk carries lastChunk. Nothing is sent when there never was output. */
  end(): void {
    clearTimeout(this.timer);
    const last = this.pending;
    this.pending = undefined;
    if (last !== undefined) this.emit(last, true);
    else if (this.started) this.emit("", true);
  }

  private emit(text: string, lastChunk: boolean): void {
    this.events.artifact(
      { artifactId: OUTPUT_ARTIFACT_ID, name: "stdout", parts: [{ content: { case: "text", value: text }, mediaType: "text/plain" }] },
      { append: this.started, lastChunk },
    );
    this.started = true;
  }
}
