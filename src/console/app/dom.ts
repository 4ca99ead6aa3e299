/// <reference lib="dom" />
/** What h() accepts as children: nodes, text, nothing, or lists of them. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];
type Attr = string | number | boolean | undefined | ((e: Event) => void);

/**
 * Builds an element: attributes (booleans toggle, `on*` functions listen),
 * then children. Text always goes in as text nodes, so nothing the hub or an
 * agent sends is ever parsed as HTML.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Readonly<Record<string, Attr>> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A labelled form control: the label names the control for screen readers and clicks. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || (control.id = `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${++fieldCount}`);
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) control.setAttribute("aria-describedby", hintId);
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("small", { id: hintId }, hint) : null);
}
let fieldCount = 0;

/** Pretty JSON for raw panes. */
export function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}
