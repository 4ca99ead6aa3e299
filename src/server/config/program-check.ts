import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/**
 * Why a command agent's program could not be started, naming the path that
 * was tried, or undefined when it can. A program with a slash is a path
 * (relative to the agent's `cwd`, as the spawned process resolves it); a
 * bare name is looked up on PATH, as execvp does. Checked at start, so a
 * typo fails the hub at once rather than the first task.
 */
export function programProblem(program: string, cwd: string | undefined, path: string | undefined): string | undefined {
  if (program.includes("/")) {
    const file = isAbsolute(program) ? program : resolve(cwd ?? ".", program);
    return fileProblem(file);
  }
  const dirs = (path ?? "").split(delimiter).filter((d) => d !== "");
  let firstProblem: string | undefined;
  for (const dir of dirs) {
    const file = resolve(join(dir, program));
    const problem = fileProblem(file);
    if (problem === undefined) return undefined;
    // Like execvp, a match that cannot run does not hide a later one that can.
    if (!problem.endsWith("not found")) firstProblem ??= problem;
  }
  return firstProblem ?? `${program} not found on PATH (${dirs.join(delimiter) || "PATH is empty"})`;
}

function fileProblem(file: string): string | undefined {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch {
    return `${file} not found`;
  }
  if (!isFile) return `${file} is not a file`;
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return `${file} is not executable`;
  }
  return undefined;
}
