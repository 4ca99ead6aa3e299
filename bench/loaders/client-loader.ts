/**
 * Unary SendMessage load through a real client stack (harness/client-stacks.ts),
 * run in its own process pinned to the loader core. `connections` is the
 * number of calls in flight, spread over the stack's channels (four for
 * the HTTP/2 stacks, as a client pool would hold), each call a new message
 * and each answer checked; a wrong one counts as an error.
 *
 * Config (argv[2], JSON): url (the server's base URL), stack, connections,
 * warmupSec, durationSec, runs. Prints `MARK start|end <i>` around each
 * timed run, like the other unary loaders, then the result.
 */
import { channelCount, stackChannel, type ClientStack } from "../harness/client-stacks.js";
import { loaderConfig, printResult, runTimed, timedCalls } from "../harness/loader-process.js";

interface Config {
  url: string;
  stack: ClientStack;
  connections: number;
  warmupSec: number;
  durationSec: number;
  runs: number;
}

const config = loaderConfig<Config>();

async function main(): Promise<void> {
  const channels = Array.from({ length: channelCount(config.stack, config.connections) }, () => stackChannel(config.stack, config.url));
  // Each in-flight slot calls on its channel, one call after another.
  const slots = Array.from({ length: config.connections }, (_, slot) => () => channels[slot % channels.length]!.call());
  try {
    await runTimed(config, (sec) => timedCalls(slots, sec));
  } finally {
    for (const c of channels) c.close();
  }
}

main().catch((e: unknown) => printResult({ error: e instanceof Error ? e.message : String(e) }));
