import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import type { AgentExecutor } from "../execution/index.js";
import type { RetryPolicy } from "./send-ledger.js";

/**
 * An agent the hub serves: its executor and the card facts core enforces
 * (capabilities §3.3.4, input modes §3.1.1). The card's interfaces are
 * filled in by the cards layer, which knows the public URLs.
 */
export interface HostedAgent {
  readonly id: string;
  readonly executor: AgentExecutor;
  /** The public card without supportedInterfaces. */
  readonly card: AgentCard;
  /** §3.1.11: the card for authenticated callers, when the card declares one. */
  readonly extendedCard?: AgentCard;
  /** A card learned after start (a remote agent's own): each one given to `apply` replaces `card`. */
  readonly watchCard?: (apply: (card: AgentCard) => void) => void;
  /** This agent's retry handling, over the hub-wide one. */
  readonly retries?: Partial<RetryPolicy>;
}
