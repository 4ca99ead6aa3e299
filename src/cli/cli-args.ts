import { parseArgs, type ParseArgsConfig } from "node:util";

/** One command-line option, as it is parsed and as `--help` documents it. */
export interface OptionDoc {
  /** The long name, without dashes: "port" for --port. */
  readonly name: string;
  /** What the value is called in the usage ("N", "FILE"); absent for a switch. */
  readonly value?: string;
  /** May be given more than once. */
  readonly multiple?: boolean;
  /** The environment variable that sets the same thing, when there is one. */
  readonly env?: string;
  /** The config file key that sets the same thing, when there is one. */
  readonly config?: string;
  readonly help: string;
}

/** A problem with the command line itself (unknown option, missing value, stray argument). */
export class ArgumentError extends Error {
  override readonly name = "ArgumentError";
}

/** Options every command takes: its usage, and the version. */
export const STANDARD_OPTIONS: readonly OptionDoc[] = [
  { name: "help", help: "show this usage and exit (also -h)" },
  { name: "version", help: "print the version and exit" },
];

/** The parsed command line of one command. */
export interface ParsedArgs {
  readonly values: Record<string, string | boolean | string[] | undefined>;
  readonly positionals: string[];
}

/**
 * Parses `argv` against the options of `command` (plus --help/-h and
 * --version). An unknown or misspelt option, a missing value, or a value
 * given to a switch is an ArgumentError naming the argument (and the
 * nearest known option), never ignored.
 */
export function parseArguments(command: string, argv: readonly string[], docs: readonly OptionDoc[]): ParsedArgs {
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  for (const d of [...docs, ...STANDARD_OPTIONS]) options[d.name] = d.multiple ? { type: "string", multiple: true } : { type: d.value ? "string" : "boolean" };
  options.help = { type: "boolean", short: "h" };
  const fail = (problem: string): never => {
    throw new ArgumentError(`${command}: ${problem}`);
  };
  // A lenient pass first, to name the offending argument in our own words.
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind !== "option") continue;
    const known = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!known) fail(`unknown option ${t.rawName}${didYouMean(t.name, Object.keys(options), "--")}`);
    else if (known.type === "string" && t.value === undefined) fail(`${t.rawName} needs a value`);
    else if (known.type === "string" && t.inlineValue !== true && t.value!.startsWith("-")) {
      // "--port --data x" forgot the port; "--data -1" meant the value: say how to write it.
      fail(`${t.rawName} needs a value${t.value!.startsWith("--") ? "" : ` (for one that starts with "-", write ${t.rawName}=${t.value})`}`);
    }
    else if (known.type === "boolean" && t.inlineValue) fail(`${t.rawName} takes no value`);
  }
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (e) {
    return fail((e as Error).message.split("\n")[0]!);
  }
}

/** " (did you mean --port?)" when a known word is one or two edits away from `word`, or starts with it; else "". */
export function didYouMean(word: string, known: readonly string[], prefix = ""): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = k.startsWith(word) && word.length >= 2 ? 1 : editDistance(word, k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best ? ` (did you mean ${prefix}${best}?)` : "";
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
