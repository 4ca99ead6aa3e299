/**
 * The `a2a-hub` command (bin/a2a-hub.mjs loads this under tsx): runs the
 * command line and exits with its code once the output is written.
 */
import { runCli } from "./run-cli.js";

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
// Idle HTTP/2 sessions and keep-alive sockets must not hold the process open.
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
process.exit(code);
