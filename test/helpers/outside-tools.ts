import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Tools from outside npm that some tests drive (a browser, openssl, curl,
 * podman, …). A fresh machine with only Node's npm passes `npm test`: each
 * test that needs a missing tool skips, saying so in one line with the Debian
 * packages that enable it. CI (.ci/run) sets the variable that requires them,
 * and then a missing tool is an error instead.
 */

/** Whether `command` is an executable on PATH (or, given a path, that file). */
export function onPath(command: string): boolean {
  const candidates = command.includes("/") ? [command] : (process.env.PATH ?? "").split(delimiter).filter(Boolean).map((d) => join(d, command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The commands of `commands` that are not on PATH. */
export function missingCommands(commands: readonly string[]): string[] {
  return commands.filter((c) => !onPath(c));
}

/** What a test needs from outside npm, and what requires it in CI. */
export interface OutsideNeed {
  /** The test file, as the skip line names it. */
  readonly file: string;
  /** Which tests skip ("the container tests"). */
  readonly what: string;
  /** What is missing (commands or a sentence); empty when nothing is. */
  readonly missing: readonly string[];
  /** The Debian packages that install it. */
  readonly packages: string;
  /** The environment variable that turns the skip into an error (set by .ci/run). */
  readonly requiredBy: "A2A_HUB_REQUIRE_CLIENTS" | "A2A_HUB_REQUIRE_CONTAINER" | "A2A_HUB_REQUIRE_PG";
}

/**
 * Prints the one line saying why a test skips and how to enable it, and
 * returns whether it skips; when `requiredBy` is set, throws instead.
 */
export function skipsWithout(need: OutsideNeed): boolean {
  if (need.missing.length === 0) return false;
  const line = `${need.file}: ${need.what} skipped: ${need.missing.join(", ")} not installed; to run them, apt-get install ${need.packages}`;
  if (process.env[need.requiredBy]) throw new Error(`${need.requiredBy} is set but ${line}`);
  console.warn(line);
  return true;
}
