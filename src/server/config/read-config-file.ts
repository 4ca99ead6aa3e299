import { readFileSync } from "node:fs";
import { LineCounter, parseDocument, isMap, isNode, isScalar, isSeq, type Node } from "yaml";
import { ConfigError } from "./config-error.js";

/** A parsed config file and a way to find the line a key was written on. */
export interface ConfigSource {
  readonly file: string;
  readonly data: unknown;
  /**
   * The 1-based line of a key path like ["agents", 1, "id"]: the line of the
   * key itself (not of its value, which may start lines below); for a key
   * that is missing, the line of the nearest mapping or list that encloses it.
   */
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
    throw new ConfigError("config", `cannot read ${file}: ${(e as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) throw new ConfigError("(file)", first.message.split("\n")[0]!, { file, line: lines.linePos(first.pos[0]).line });
  const lineAt = (node: unknown): number | undefined => (isNode(node) && node.range ? lines.linePos(node.range[0]).line : undefined);
  return {
    file,
    data: doc.toJS(),
    lineOf: (path) => {
      let node: unknown = doc.contents;
      let line = lineAt(node);
      for (const step of path) {
        if (isMap(node)) {
          const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step);
          if (!pair) return line;
          node = pair.value;
          // A key's line, whatever its value's layout (a nested mapping starts on the next line).
          line = lineAt(pair.key) ?? lineAt(node) ?? line;
        } else if (isSeq(node) && typeof step === "number") {
          const item: unknown = node.items[step];
          if (item === undefined) return line;
          node = item;
          line = lineAt(item as Node) ?? line;
        } else {
          return line;
        }
      }
      return line;
    },
  };
}
