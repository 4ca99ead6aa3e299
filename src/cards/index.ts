/** Agent cards: what each hosted agent publishes about itself (§8). */
export { publicCard, type CardOptions, type ServedInterface } from "./agent-card.js";
export { cardDocument, cardFormFor, type CardDocument, type CardForm } from "./card-document.js";
