/**
 * The `a2a-hub` command (bin/a2a-hub.mjs loads this: compiled in the
 * package, under tsx in a clone): runs the command line and exits with its
 * code once the output is written.
 */
import { packageVersion } from "./version.js";

const argv = process.argv.slice(2);
// `--version` answers before the commands (and the server they import) load: it costs a process start, not a hub's.
const code =
  argv.length === 1 && argv[0] === "--version"
    ? (process.stdout.write(`a2a-hub ${packageVersion()}\n`), 0)
    : await (await import("./run-cli.js")).runCli(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
// Idle HTTP/2 sessions and keep-alive sockets must not hold the process open.
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
process.exit(code);
