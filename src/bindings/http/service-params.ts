import type { AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";
import { EXTENSIONS_HEADER, parseExtensions, parseVersion, SUPPORTED_VERSIONS, VERSION_HEADER, type A2AVersion } from "../../protocol/index.js";

export { EXTENSIONS_HEADER, parseExtensions, parseVersion, SUPPORTED_VERSIONS, VERSION_HEADER, type A2AVersion };
import { headerValue, queryParams, type HttpRequest } from "./http-exchange.js";

/**
 * §3.6.1/§3.6.2: the version a request asks for, from the A2A-Version
 * header or, failing that, the A2A-Version query parameter. Undefined when
 * the client sent none or an empty value: the binding then decides (the
 * JSON-RPC facade infers it from the method name). "1" is read as 1.0, and
 * a patch part ("1.0.1", "0.3.0") is ignored because §3.6 says patch numbers
 * must not be considered. Anything else is VersionNotSupported.
 */
export function requestedVersion(req: HttpRequest, supported: readonly A2AVersion[] = SUPPORTED_VERSIONS): A2AVersion | undefined {
  const raw = headerValue(req, VERSION_HEADER) ?? queryValue(queryParams(req), VERSION_HEADER);
  return parseVersion(raw, supported);
}

/** The outcome of matching a request's A2A-Extensions against the agent card. */
export interface ExtensionNegotiation {
  /** What the client listed, deduplicated, in its order. */
  readonly requested: readonly string[];
  /** The requested extensions the card declares: these are active and echoed back. */
  readonly activated: readonly string[];
  /** Extensions the card marks required that the client did not request. */
  readonly missingRequired: readonly string[];
}

/**
 * §4.6 and §3.3.4: activates the requested extensions that the card
 * declares, and lists the required ones the client left out.
 */
export function negotiateExtensions(req: HttpRequest, card: AgentCard): ExtensionNegotiation {
  const requested = parseExtensions(headerValue(req, EXTENSIONS_HEADER));
  const declared = card.capabilities?.extensions ?? [];
  const activated = requested.filter((uri) => declared.some((d) => d.uri === uri));
  const missingRequired = declared.filter((d) => d.required && !requested.includes(d.uri)).map((d) => d.uri);
  return { requested, activated, missingRequired };
}

/** Response headers that echo the activated extensions (§3.2.6). */
export function extensionHeaders(n: ExtensionNegotiation): Record<string, string> {
  return n.activated.length > 0 ? { [EXTENSIONS_HEADER.toLowerCase()]: n.activated.join(", ") } : {};
}

/** Both service parameters of one HTTP exchange, settled before any call runs. */
export interface ServiceParamsNegotiation {
  /** The A2A-Version the client asked for; undefined when it sent none (the binding's default applies). */
  readonly version: A2AVersion | undefined;
  readonly extensions: ExtensionNegotiation;
  /** Headers every response of the exchange carries (the activated extensions). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * §3.2.6: reads A2A-Version (VersionNotSupported when the interface does
 * not speak it) and matches A2A-Extensions against the card, the same way
 * for every HTTP binding. Required extensions are judged by core, once for
 * every binding, against the agent a call resolves to (ExtensionSupportRequired).
 */
export function negotiateServiceParams(req: HttpRequest, card: AgentCard, supported: readonly A2AVersion[] = SUPPORTED_VERSIONS): ServiceParamsNegotiation {
  const version = requestedVersion(req, supported);
  const extensions = negotiateExtensions(req, card);
  return { version, extensions, headers: extensionHeaders(extensions) };
}

function queryValue(params: URLSearchParams, name: string): string | undefined {
  const exact = params.get(name);
  if (exact !== null) return exact;
  const lower = name.toLowerCase();
  for (const [k, v] of params) if (k.toLowerCase() === lower) return v;
  return undefined;
}
