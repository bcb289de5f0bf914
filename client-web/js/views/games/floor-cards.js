// Floor's cards as players see them: names, faces and the arithmetic of an Operation. Shared by
// the table (./floor.js) and the "How to play" sheet (./floor-howto.js), so the sheet's
// pictures are the very cards of the table.

import { h } from "../../dom.js";
import { SHAPE_NAMES, shapeIcon } from "./shapes.js";

export const OPS = {
  add: { sign: "+", word: "Add" },
  subtract: { sign: "−", word: "Subtract" },
  multiply: { sign: "×", word: "Multiply" },
};

export function cap(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : "";
}

/**
 * A card from its wire id. Views, actions and events name cards by id only; the ids are fixed
 * and documented (docs/rules/floor.md, "The cards"), so this is the wire format, not a rule.
 */
export function cardOf(id) {
  if (id < 80) {
    return { id, kind: "number", shape: SHAPE_NAMES[Math.floor(id / 20)], value: Math.floor((id % 20) / 2), op: null };
  }
  if (id < 92) return { id, kind: "operation", shape: null, value: null, op: ["add", "subtract", "multiply"][Math.floor((id - 80) / 4)] };
  if (id < 96) return { id, kind: "freeze", shape: SHAPE_NAMES[id - 92], value: null, op: null };
  if (id < 104) return { id, kind: "take", shape: SHAPE_NAMES[(id - 96) % 4], value: id < 100 ? 1 : 2, op: null };
  return { id, kind: id < 108 ? "swap" : "power", shape: null, value: null, op: null };
}

export function cardLabel(card) {
  switch (card.kind) {
    case "number":
      return `${cap(card.shape)} ${card.value}`;
    case "operation":
      return OPS[card.op] ? OPS[card.op].word : cap(card.op);
    case "freeze":
      return `${cap(card.shape)} Freeze`;
    case "take":
      return `${cap(card.shape)} Take +${card.value}`;
    default:
      return cap(card.kind);
  }
}

/** `floor op n` before and after "only the last digit counts". */
export function operate(op, floor, n) {
  const raw = op === "add" ? floor + n : op === "subtract" ? floor - n : floor * n;
  return { raw, result: ((raw % 10) + 10) % 10 };
}

/** "4 + 6 = 10 → 0"; "7 + 1 = 8" when nothing is cut off. */
export function sumText(op, floor, n) {
  const { raw, result } = operate(op, floor, n);
  const base = `${floor} ${OPS[op].sign} ${n} = ${raw}`;
  return raw === result ? base : `${base} → ${result}`;
}

/** Why the result is not the sum itself, in words; null when it is. */
export function digitNote(op, floor, n) {
  const { raw, result } = operate(op, floor, n);
  if (raw === result) return null;
  return raw < 0 ? "below 0, count on from 10" : "only the last digit counts";
}

// -- faces -------------------------------------------------------------------------------------

/** The corner index (readable when cards overlap) and the middle of the face. */
function face(card) {
  switch (card.kind) {
    case "number":
      return {
        corner: [String(card.value), shapeIcon(card.shape, { size: "0.8em" })],
        middle: [shapeIcon(card.shape, { size: "1.9em" }), h("span", { class: "f-value" }, String(card.value))],
      };
    case "operation": {
      const sign = OPS[card.op] ? OPS[card.op].sign : "?";
      return {
        corner: [sign],
        middle: [h("span", { class: "f-value" }, sign), h("span", { class: "f-word" }, OPS[card.op] ? OPS[card.op].word : card.op)],
      };
    }
    case "freeze":
      return {
        corner: ["❄", shapeIcon(card.shape, { size: "0.8em" })],
        middle: [shapeIcon(card.shape, { size: "1.2em" }), h("span", { class: "f-value" }, "❄"), h("span", { class: "f-word" }, "Freeze")],
      };
    case "take":
      return {
        corner: [`+${card.value}`, shapeIcon(card.shape, { size: "0.8em" })],
        middle: [shapeIcon(card.shape, { size: "1.2em" }), h("span", { class: "f-value" }, `+${card.value}`), h("span", { class: "f-word" }, "Take")],
      };
    case "swap":
      return { corner: ["⇄"], middle: [h("span", { class: "f-value" }, "⇄"), h("span", { class: "f-word" }, "Swap")] };
    case "power":
      return { corner: ["✦"], middle: [h("span", { class: "f-value" }, "✦"), h("span", { class: "f-word" }, "Power")] };
    default:
      return { corner: ["?"], middle: [h("span", { class: "f-word" }, card.kind)] };
  }
}

export function cardFace(card) {
  const { corner, middle } = face(card);
  return [
    h("span", { class: "f-corner", "aria-hidden": "true" }, corner),
    h("span", { class: "f-middle", "aria-hidden": "true" }, middle),
  ];
}

export function cardClass(card) {
  return ["card", "f-card", `k-${card.kind}`, card.shape && `s-${card.shape}`];
}

/** A card that is only looked at (the top of the pile, the pictures of the sheet). */
export function cardPicture(card, props = {}) {
  return h(
    "span",
    { role: "img", "aria-label": cardLabel(card), ...props, class: [...cardClass(card), props.class] },
    cardFace(card),
  );
}

/** A face-down card. */
export function cardBack(props = {}) {
  return h("span", { "aria-hidden": "true", ...props, class: ["card", "f-card", "back", props.class] });
}
