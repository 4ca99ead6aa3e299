import type { AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";
import { h } from "./dom.js";

/**
 * What to try with this agent, from its card: each skill's examples (or,
 * without examples, its name), as buttons that put the text in the composer.
 */
export function composerHints(card: AgentCard | undefined, target: HTMLTextAreaElement): HTMLElement | null {
  const tries = (card?.skills ?? []).flatMap((s) => (s.examples.length ? s.examples.map((e) => ({ text: e, skill: s.name || s.id })) : []));
  if (tries.length === 0) {
    const skills = (card?.skills ?? []).map((s) => s.name || s.id);
    return skills.length ? h("p", { class: "composer-hints skills-note" }, `Skills: ${skills.join(", ")}.`) : null;
  }
  target.placeholder = tries.slice(0, 3).map((t) => t.text).join(" · ");
  return h(
    "div",
    { class: "composer-hints", role: "group", "aria-label": "Examples from the agent's skills" },
    h("span", { class: "hints-label" }, "Try: "),
    tries.slice(0, 8).map((t) => {
      const b = h("button", { type: "button", class: "hint-chip", title: `Example of ${t.skill}` }, t.text);
      b.addEventListener("click", () => {
        target.value = t.text;
        target.focus();
      });
      return b;
    }),
  );
}
