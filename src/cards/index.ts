/** Agent cards: what each hosted agent publishes about itself (§8). */
export { publicCard, type CardOptions, type ServedInterface } from "./agent-card.js";
export { cardSecurityFields, type CardIssuer, type CardSecurity, type CardSecurityFields } from "./card-security.js";
export { cardDocument, cardFormFor, documentOf, type CardDocument, type CardForm } from "./card-document.js";
export { agentCard, type CardFacts, type SkillFacts } from "./define-card.js";
export {
  createCardSigner,
  loadSigningKey,
  SIGNING_ALGORITHMS,
  type CardSigner,
  type SigningAlgorithm,
  type SigningKey,
  type SigningKeyConfig,
} from "./card-signer.js";
