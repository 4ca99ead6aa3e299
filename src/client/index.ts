/**
 * The outbound A2A client: card resolution, interface choice and
 * the A2A operations over JSON-RPC (v1.0 and v0.3), HTTP+JSON and gRPC, with
 * every binding's errors read back into A2AError. Used by the remote agent
 * and the CLI.
 */
export { A2AClient, DEFAULT_TIMEOUT_MS, type CallOptions, type ClientOptions, type SubscribeOptions } from "./a2a-client.js";
export { ClientCredentials, TokenRequestError, type ClientCredentialsOptions, type TokenSource } from "./client-credentials.js";
export { CardSignatureError, cardVerifier, type CardTrust, type VerifiedSignature } from "./card-verifier.js";
export { cardUrlOf, cardUrlsOf, fetchAgentCard, parseAgentCard, WELL_KNOWN_CARD_PATH } from "./agent-card-fetch.js";
export { BINDING_NAMES, bindingOf, isBindingName, PROTOCOL_BINDINGS, SPOKEN_VERSIONS, versionOf, type BindingName } from "./binding.js";
export { fromConnectError, fromHttpError, fromJsonRpcError } from "./binding-errors.js";
export { CLIENT_FAILURE_KEY, clientFailure, clientFailureOf, invalidResponse, type ClientFailureKind } from "./client-failure.js";
export type { ClientTransport, TransportCall } from "./client-transport.js";
export type { GrpcTransportOptions } from "./grpc-transport.js";
export { chooseInterface, type ChosenInterface } from "./interface-choice.js";
export { grpcBaseUrl } from "./grpc-transport.js";
export { readSse, type SseMessage } from "./sse-reader.js";
export { streamEventId } from "./stream-event-id.js";
