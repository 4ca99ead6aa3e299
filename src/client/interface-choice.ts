import type { AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AError, type A2AVersion } from "../protocol/index.js";
import { BINDING_NAMES, bindingOf, PROTOCOL_BINDINGS, SPOKEN_VERSIONS, versionOf, type BindingName } from "./binding.js";

/** The interface of a card a client talks to. */
export interface ChosenInterface {
  readonly binding: BindingName;
  readonly version: A2AVersion;
  readonly url: string;
  /** §8.3.2: sent in every request; "" when the interface declares none. */
  readonly tenant: string;
}

/**
 * §8.3.2: the interface to use. Among the card's interfaces that this
 * client speaks and that `bindings` allows, the newest protocol version
 * wins (v1.0 before v0.3), then the binding earlier in `bindings`, then the
 * card's own order (its first entry is its preference, §8.3.1). Refuses
 * with UnsupportedOperation when no interface qualifies (VersionNotSupported
 * when an allowed binding is offered only at versions we do not speak).
 */
export function chooseInterface(card: AgentCard, bindings: readonly BindingName[] = BINDING_NAMES): ChosenInterface {
  if (bindings.length === 0) throw new A2AError("InvalidParams", "no binding is allowed");
  const candidates: Array<ChosenInterface & { order: number }> = [];
  let offeredAtOtherVersions = false;
  card.supportedInterfaces.forEach((i, order) => {
    const binding = bindingOf(i.protocolBinding);
    if (!binding || !bindings.includes(binding) || !i.url) return;
    const version = versionOf(i.protocolVersion);
    if (!version || !SPOKEN_VERSIONS[binding].includes(version)) {
      offeredAtOtherVersions = true;
      return;
    }
    candidates.push({ binding, version, url: i.url, tenant: i.tenant, order });
  });
  const rank = (c: ChosenInterface & { order: number }): number[] => [c.version === "1.0" ? 0 : 1, bindings.indexOf(c.binding), c.order];
  candidates.sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let k = 0; k < ra.length; k++) if (ra[k] !== rb[k]) return ra[k]! - rb[k]!;
    return 0;
  });
  const best = candidates[0];
  if (best) return { binding: best.binding, version: best.version, url: best.url, tenant: best.tenant };
  const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion || "?"}`).join(", ") || "nothing";
  const wanted = bindings.map((b) => `${PROTOCOL_BINDINGS[b]} ${SPOKEN_VERSIONS[b].join("/")}`).join(", ");
  throw new A2AError(offeredAtOtherVersions ? "VersionNotSupported" : "UnsupportedOperation", `the agent offers ${offered}; this client needs one of ${wanted}`);
}
