import { readFileSync } from "node:fs";
import { LineCounter, parseDocument, isNode } from "yaml";
import { ConfigError } from "./config-error.js";

/** A parsed config file and a way to find the line a key was written on. */
export interface ConfigSource {
  readonly file: string;
  readonly data: unknown;
  /** The 1-based line of a key path like ["agents", 1, "id"], when it is in the file. */
  lineOf(path: ReadonlyArray<string | number>): number | undefined;
}

/**
 * Reads a JSON or YAML config file (JSON is read by the YAML 1.2 parser,
 * which knows where every key stands, so errors can name lines in both).
 */
export function readConfigFile(file: string): ConfigSource {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError("--config", `cannot read ${file}: ${(e as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) throw new ConfigError("(file)", first.message.split("\n")[0]!, { file, line: lines.linePos(first.pos[0]).line });
  return {
    file,
    data: doc.toJS(),
    lineOf: (path) => {
      const node = doc.getIn(path, true);
      const range = isNode(node) ? node.range : undefined;
      return range ? lines.linePos(range[0]).line : undefined;
    },
  };
}
