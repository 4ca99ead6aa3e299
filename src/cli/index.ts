/** The `a2a-hub` command line: the server and an A2A client for any agent. */
export { runCli, USAGE } from "./run-cli.js";
export { EXIT, exitCodeOf } from "./exit-codes.js";
export type { CliIo } from "./cli-io.js";
export { hostHeaderWarning, isLoopbackHost, parseCli, SERVE_OPTIONS, type CliCommand } from "./cli-options.js";
export { ArgumentError, didYouMean, parseArguments, STANDARD_OPTIONS, type OptionDoc, type ParsedArgs } from "./cli-args.js";
