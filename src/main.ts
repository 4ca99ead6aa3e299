/**
 * `npm start -- [serve options] | hash-token`: the `a2a-hub serve` command
 * (src/cli), which serves the configured agents on one port and prints the
 * URL, or `a2a-hub hash-token`. One implementation of the server's life:
 * SIGINT/SIGTERM stop it gracefully, a second signal forces the exit.
 */
import { runCli } from "./cli/index.js";

const argv = process.argv.slice(2);
const command = argv[0] === "hash-token" || argv[0] === "serve" ? argv : ["serve", ...argv];
const code = await runCli(command, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
process.exit(code);
