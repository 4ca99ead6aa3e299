/** Agent cards: what each hosted agent publishes about itself (§8). */
export { publicCard, type CardOptions, type ServedInterface } from "./agent-card.js";
export { cardDocument, type CardDocument } from "./card-document.js";
export { agentCard, type CardFacts, type SkillFacts } from "./define-card.js";
