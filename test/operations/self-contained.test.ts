import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/server-process.js";

/**
 * A user's clone has nothing beside it: no test, script, source file or
 * README link may reach a folder next to the repository. The names are
 * built from parts so that this file does not match itself.
 */
const SIBLING = ["..", "shared"].join("/");
const SPEC_COPY = ["shared", "spec"].join("/");

/** Every file git would put in a clone (tracked, plus new files not ignored). */
function repositoryFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT });
  return out.toString("utf8").split("\0").filter(Boolean);
}

describe("the repository stands alone", () => {
  it(`no file in the repository refers to ${SIBLING} or a local copy of the spec`, () => {
    const files = repositoryFiles();
    expect(files.length).toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(REPO_ROOT, file), "utf8");
      } catch {
        continue; // listed by git but deleted in the working tree
      }
      text.split("\n").forEach((line, i) => {
        if (line.includes(SIBLING) || line.includes(SPEC_COPY)) offenders.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders, `files that reach outside the repository:\n${offenders.join("\n")}`).toEqual([]);
  });

  it("the LICENSE file is the license package.json names", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { license: string };
    const text = readFileSync(join(REPO_ROOT, "LICENSE"), "utf8");
    const titles: Record<string, RegExp> = { "Apache-2.0": /^\s*Apache License\s+Version 2\.0, January 2004/ };
    expect(titles[pkg.license], `a LICENSE check for ${pkg.license}`).toBeDefined();
    expect(text).toMatch(titles[pkg.license]!);
    expect(text).toContain("END OF TERMS AND CONDITIONS");
  });
});
