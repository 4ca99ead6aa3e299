import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * How the bench starts a TypeScript entry point: node with the tsx loader, no npm or tsx wrapper process in between;
 * "a2a-hub" resolves to the hub's sources (the a2a-hub-source condition of its exports).
 */
export function nodeTs(script: string, args: readonly string[] = [], nodeFlags: readonly string[] = []): string[] {
  return [process.execPath, ...nodeFlags, "--conditions=a2a-hub-source", "--import", "tsx", script, ...args];
}

/** A child process the bench started, with its output read line by line. */
export class Child {
  readonly proc: ChildProcess;
  private readonly stderrLines: string[] = [];
  private readonly lineWaiters: Array<{ re: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  private readonly lineListeners: Array<(line: string) => void> = [];
  readonly exited: Promise<number | null>;

  constructor(readonly name: string, argv: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
    this.proc = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env, cwd: options.cwd });
    this.exited = new Promise((resolve) => this.proc.once("exit", (code, signal) => resolve(code ?? (signal ? -1 : null))));
    createInterface({ input: this.proc.stdout! }).on("line", (line) => {
      for (const l of this.lineListeners) l(line);
      for (let i = 0; i < this.lineWaiters.length; i++) {
        const m = line.match(this.lineWaiters[i]!.re);
        if (m) {
          this.lineWaiters.splice(i, 1)[0]!.resolve(m);
          i--;
        }
      }
    });
    createInterface({ input: this.proc.stderr! }).on("line", (line) => {
      this.stderrLines.push(line);
      if (this.stderrLines.length > 40) this.stderrLines.shift();
    });
  }

  get pid(): number {
    return this.proc.pid!;
  }

  /** The last lines the child wrote to stderr, for error messages. */
  stderrTail(): string {
    return this.stderrLines.join("\n");
  }

  onLine(listener: (line: string) => void): void {
    this.lineListeners.push(listener);
  }

  /** Resolves with the first stdout line matching `re`; rejects on exit or after `timeoutMs`. */
  waitForLine(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no line matching ${re} within ${timeoutMs} ms\n${this.stderrTail()}`)), timeoutMs);
      this.lineWaiters.push({
        re,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited (${code}) before printing ${re}\n${this.stderrTail()}`));
      });
    });
  }

  send(line: string): void {
    this.proc.stdin!.write(`${line}\n`);
  }

  /** Asks the child to stop (SIGTERM or `signal`), then kills it if it has not exited in `graceMs`. */
  async stop(signal: NodeJS.Signals = "SIGTERM", graceMs = 15_000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill(signal);
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
