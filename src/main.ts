/**
 * `npm start -- [serve options]`: the `a2a-hub serve` command (src/cli),
 * which serves the configured agents on one port and prints the URL. With
 * no arguments, or options only, it serves (`npm start`, `npm start --
 * --port 8080`, `npm start -- --help`); a first word names another command
 * (`npm start -- hash-token`), as `a2a-hub` takes it. One implementation of
 * the server's life: SIGINT/SIGTERM stop it gracefully, a second signal
 * forces the exit.
 */
import { runCli } from "./cli/index.js";

const argv = process.argv.slice(2);
// `npm start` is `a2a-hub serve`: options go to serve; a word is a command (or a stray argument runCli names).
const command = argv[0] === undefined || argv[0].startsWith("-") ? ["serve", ...argv] : argv;
const code = await runCli(command, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
process.exit(code);
