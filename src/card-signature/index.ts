/**
 * Agent card signatures (§8.4), the part server and client share: the
 * canonical payload a JWS covers. A leaf: it imports only gen/ and libraries,
 * so src/cards (signing) and src/client (verifying) both build on it.
 */
export { cardSigningPayload, cardVerificationPayloads, jcs } from "./signing-payload.js";
export { CARD_REQUIRED_FIELDS } from "./required-fields.js";
