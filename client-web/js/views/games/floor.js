// Floor's table, drawn from the view (rules/floor/views.py). The view's legal list is compact
// (rules/floor/options.py `to_wire`, "Legal actions in the view" in docs/rules/floor.md): it
// names which cards can start which play without multiplying choices out. Here the player picks cards from their hand; a card can be picked
// only while the picked set can still grow into one of the listed plays, and once it is a whole
// play the buttons offer it (once per shape it may name).

import { h } from "../../dom.js";
import { button } from "../common.js";
import { SHAPE_NAMES, shapeIcon } from "./shapes.js";

const OPS = { add: ["+", "Add"], subtract: ["−", "Subtract"], multiply: ["×", "Multiply"] };

function cap(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : "";
}

export function cardLabel(card) {
  switch (card.kind) {
    case "number":
      return `${cap(card.shape)} ${card.value}`;
    case "operation":
      return OPS[card.op] ? OPS[card.op][1] : cap(card.op);
    case "freeze":
      return `${cap(card.shape)} Freeze`;
    case "take":
      return `${cap(card.shape)} Take ${card.value}`;
    default:
      return cap(card.kind);
  }
}

function cardFace(card) {
  switch (card.kind) {
    case "number":
      return [shapeIcon(card.shape, { size: "1.6em" }), h("span", { class: "f-value" }, String(card.value))];
    case "operation": {
      const [symbol, word] = OPS[card.op] || ["?", card.op];
      return [h("span", { class: "f-value" }, symbol), h("span", { class: "f-word" }, word)];
    }
    case "freeze":
      return [shapeIcon(card.shape, { size: "1.1em" }), h("span", { class: "f-value" }, "❄"), h("span", { class: "f-word" }, "Freeze")];
    case "take":
      return [shapeIcon(card.shape, { size: "1.1em" }), h("span", { class: "f-value" }, `+${card.value}`), h("span", { class: "f-word" }, "Take")];
    case "swap":
      return [h("span", { class: "f-value" }, "⇄"), h("span", { class: "f-word" }, "Swap")];
    case "power":
      return [h("span", { class: "f-value" }, "✦"), h("span", { class: "f-word" }, "Power")];
    default:
      return [h("span", { class: "f-word" }, card.kind)];
  }
}

function cardClass(card) {
  return ["f-card", `k-${card.kind}`, card.shape && `s-${card.shape}`];
}

function cardPicture(card, props = {}) {
  return h("span", { role: "img", "aria-label": cardLabel(card), ...props, class: [...cardClass(card), props.class] }, cardFace(card));
}

// -- from the compact legal list to plays -----------------------------------------------------

function inShapeOrder(shapes) {
  return SHAPE_NAMES.filter((shape) => shapes.includes(shape));
}

/**
 * What may ride along with an operand: nothing, or a set of Numbers listed under the operand's
 * result (never one holding the operand itself). The new Floor Shape may be the operand's or a
 * rider's.
 */
function ridersOf(entry, operand) {
  const own = operand.shape ? [operand.shape] : [];
  const sets = (entry.riders && entry.riders[String(operand.result)]) || [];
  return [
    { cards: [], shapes: own },
    ...sets
      .filter((rider) => !rider.cards.includes(operand.card))
      .map((rider) => ({ cards: rider.cards, shapes: inShapeOrder([...own, ...rider.shapes]) })),
  ];
}

/** Every play the legal list allows, as templates of the hand cards it uses. */
function templates(legal) {
  const out = [];
  for (const entry of legal) {
    switch (entry.type) {
      case "number":
        for (const play of entry.plays) out.push({ kind: "number", cards: play.cards, shapes: play.shapes });
        break;
      case "operation":
        for (const choice of entry.choices) {
          for (const operand of choice.operands) {
            for (const rider of ridersOf(entry, operand)) {
              out.push({
                kind: "operation",
                op: choice.op,
                opCards: choice.cards,
                operand: operand.card,
                result: operand.result,
                riders: rider.cards,
                cards: [operand.card, ...rider.cards],
                shapes: rider.shapes,
              });
            }
          }
        }
        break;
      case "freeze":
      case "take":
      case "swap":
      case "burn":
        for (const card of entry.cards) out.push({ kind: entry.type, cards: [card] });
        break;
      case "power":
        for (const card of entry.cards) out.push({ kind: "power", cards: [card], shapes: entry.shapes });
        break;
      case "discard_operations":
        for (const set of entry.sets) out.push({ kind: "discard_operations", cards: set });
        break;
      default:
        break;
    }
  }
  return out;
}

/** Does the picked set fit inside template t; and is it all of it? */
function fit(picked, t) {
  if (t.kind === "operation") {
    let ops = 0;
    let others = 0;
    for (const id of picked) {
      if (t.opCards.includes(id)) ops += 1;
      else if (t.cards.includes(id)) others += 1;
      else return { fits: false, whole: false };
    }
    return { fits: ops <= 1, whole: ops === 1 && others === t.cards.length };
  }
  for (const id of picked) if (!t.cards.includes(id)) return { fits: false, whole: false };
  return { fits: true, whole: picked.length === t.cards.length };
}

function sorted(ids) {
  return [...ids].sort((a, b) => a - b);
}

/** The plays made of exactly the picked cards, each ready to send. */
function wholePlays(tpls, picked, byId) {
  const plays = [];
  const name = (id) => cardLabel(byId.get(id));
  for (const t of tpls) {
    if (!fit(picked, t).whole) continue;
    switch (t.kind) {
      case "number": {
        const words = t.cards.map(name).join(" + ");
        for (const shape of t.shapes) {
          plays.push({ action: { type: "number", cards: sorted(t.cards), shape }, text: `Play ${words}`, shape, many: t.shapes.length > 1 });
        }
        break;
      }
      case "operation": {
        const card = picked.find((id) => t.opCards.includes(id));
        const riders = t.riders.length ? ` with ${t.riders.map(name).join(" + ")}` : "";
        for (const shape of t.shapes) {
          plays.push({
            action: { type: "operation", card, operand: t.operand, riders: sorted(t.riders), shape },
            text: `${OPS[t.op] ? OPS[t.op][1] : t.op} ${name(t.operand)} → ${t.result}${riders}`,
            shape,
            many: t.shapes.length > 1,
          });
        }
        break;
      }
      case "power":
        for (const shape of t.shapes) {
          plays.push({ action: { type: "power", card: t.cards[0], shape }, text: "Power: set the shape to", shape, many: true });
        }
        break;
      case "discard_operations":
        plays.push({ action: { type: "discard_operations", cards: sorted(t.cards) }, text: "Discard these Operations to break the Freeze" });
        break;
      case "burn":
        plays.push({ action: { type: "burn", card: t.cards[0] }, text: "Burn the Swap and draw the bottom card" });
        break;
      case "swap":
        plays.push({ action: { type: "swap", card: t.cards[0] }, text: "Play the Swap (reverse the direction)" });
        break;
      default:
        plays.push({ action: { type: t.kind, card: t.cards[0] }, text: `Play the ${name(t.cards[0])}` });
    }
  }
  return plays;
}

/** Moves that use no card from the hand: grab, draw, pass, answering a charged Swap. */
export function plainMoves(view) {
  const out = [];
  const pending = view.pending;
  for (const entry of view.legal || []) {
    switch (entry.type) {
      case "grab":
        out.push({ action: { type: "grab" }, text: view.top ? `Grab the opener (${cardLabel(view.top)})` : "Grab the opener" });
        break;
      case "draw": {
        let text = entry.count === 1 ? "Draw a card" : `Draw ${entry.count} cards`;
        if (pending && pending.kind === "freeze") text = "Draw 1 and stay frozen";
        if (pending && pending.kind === "take") text = `Draw ${entry.count} (take the stack)`;
        out.push({ action: { type: "draw" }, text });
        break;
      }
      case "pass":
        out.push({ action: { type: "pass" }, text: "Pass (nothing to play or draw)" });
        break;
      case "reverse_back":
        out.push({ action: { type: "reverse_back" }, text: "Reverse it back (you play next)" });
        break;
      case "let_stand":
        out.push({ action: { type: "let_stand" }, text: "Let it stand" });
        break;
      default:
        break;
    }
  }
  return out;
}

/**
 * Where a player stands after picking `picked` from their hand: which cards may still be added
 * (`open`), and the plays made of exactly the picked cards (`plays`, each with the `action` to
 * send). Plain moves that use no card are in `plainMoves`. Exported for the browser tests, which
 * check that these reach exactly the actions the rules list.
 */
export function pickFrom(view, picked) {
  const hand = view.hand || [];
  const tpls = templates(view.legal || []);
  const inHand = new Set(hand.map((c) => c.id));
  let kept = picked.filter((id) => inHand.has(id));
  if (kept.length && !tpls.some((t) => fit(kept, t).fits)) kept = [];
  const open = new Set();
  for (const card of hand) {
    if (kept.includes(card.id)) continue;
    const more = [...kept, card.id];
    if (tpls.some((t) => fit(more, t).fits)) open.add(card.id);
  }
  const byId = new Map(hand.map((c) => [c.id, c]));
  const plays = kept.length ? wholePlays(tpls, kept, byId) : [];
  return { picked: kept, open, plays };
}

function picking(view, ctx) {
  return pickFrom(view, ctx.ui.picked || []);
}

// -- drawing ---------------------------------------------------------------------------------------

function floorBox(view) {
  const floor = view.floor;
  const shape = floor.shape;
  const number = floor.number;
  const words =
    shape === null && number === null
      ? "open: anything goes"
      : `${shape === null ? "any shape" : shape}, ${number === null ? "any number" : number}`;
  return h(
    "div",
    { class: "f-floor", role: "img", "aria-label": `The floor: ${words}` },
    h("span", { class: "pile-label" }, "Floor"),
    h(
      "span",
      { class: ["f-floor-face", shape && `s-${shape}`] },
      shape ? shapeIcon(shape, { size: "4.2rem" }) : h("span", { class: "f-open" }, "any shape"),
      h("span", { class: "f-floor-number" }, number === null ? "?" : String(number)),
    ),
    h("span", { class: "f-floor-words" }, shape === null && number === null ? "open" : words),
  );
}

function direction(view, ctx) {
  const seats = view.hand_sizes.map((_, i) => i);
  const order = view.direction === 1 ? seats : [...seats].reverse();
  return h(
    "div",
    { class: "f-direction", "aria-label": `Direction of play: ${order.map(ctx.names).join(" then ")}` },
    h("span", { class: "f-arrow", "aria-hidden": "true" }, view.direction === 1 ? "↻" : "↺"),
    h("span", null, view.direction === 1 ? "Play goes up the seats" : "Play goes down the seats"),
  );
}

function pendingBanner(view, ctx) {
  const p = view.pending;
  let text = "";
  if (p) {
    const who = p.seat === ctx.you ? "you" : ctx.names(p.seat);
    const by = p.by === null || p.by === undefined ? "someone" : p.by === ctx.you ? "you" : ctx.names(p.by);
    if (p.kind === "take") text = `A Take stack of ${p.stack} is on ${who} (from ${by}): stack another Take or draw ${p.stack}.`;
    else if (p.kind === "freeze") text = `${cap(who)} ${p.seat === ctx.you ? "are" : "is"} frozen by ${by}: answer with a Freeze, discard Operations, or draw 1.`;
    else if (p.kind === "charged_swap") text = `${cap(by)} played a charged Swap at ${who}: reverse it back or let it stand.`;
  } else if (view.opener_grabbable) {
    text = "The opener on the discard pile can be grabbed as the first move of the game.";
  }
  return text ? h("p", { class: "f-pending", role: "status" }, text) : null;
}

function center(view, ctx) {
  return h(
    "div",
    { class: "f-center" },
    floorBox(view),
    h(
      "div",
      { class: "f-top" },
      h("span", { class: "pile-label" }, `Top · ${view.discard_size}`),
      view.top ? cardPicture(view.top, { "aria-label": `Top card: ${cardLabel(view.top)}` }) : h("span", { class: "f-card empty" }),
    ),
    h(
      "div",
      { class: "f-drawpile", role: "img", "aria-label": `Draw pile: ${view.draw_size} cards` },
      h("span", { class: "pile-label" }, `Draw · ${view.draw_size}`),
      h("span", { class: "f-card back" }),
    ),
    direction(view, ctx),
  );
}

function shapeChoice(play) {
  return [play.text, " ", shapeIcon(play.shape, { size: "1.2em" }), ` ${play.shape}`];
}

function actionBar(view, ctx, pick) {
  const busy = ctx.busy;
  const items = pick.plays.map((play, i) =>
    button(play.many ? shapeChoice(play) : play.text, () => ctx.act(play.action), {
      class: "primary",
      "data-legal": "move",
      disabled: busy,
      key: `m${i}`,
      "aria-label": play.many ? `${play.text} ${play.shape}` : null,
    }),
  );
  if (pick.picked.length) {
    items.push(button("Clear the selection", () => ctx.setUi({ picked: [] }), { disabled: busy, key: "clear" }));
  }
  for (const [i, move] of plainMoves(view).entries()) {
    items.push(button(move.text, () => ctx.act(move.action), { "data-legal": "general", disabled: busy, key: `g${i}` }));
  }
  return items.length ? h("div", { class: "action-bar" }, items) : null;
}

function hand(view, ctx, pick) {
  if (!view.hand) return null;
  return h(
    "section",
    { class: "f-hand", "aria-label": "Your hand" },
    h("h2", { class: "small-title" }, `Your hand (${view.hand.length})`),
    h(
      "div",
      { class: "hand-cards" },
      view.hand.map((card) => {
        const on = pick.picked.includes(card.id);
        const ok = on || pick.open.has(card.id);
        const next = on ? pick.picked.filter((id) => id !== card.id) : [...pick.picked, card.id];
        return h(
          "button",
          {
            type: "button",
            key: `h${card.id}`,
            class: [...cardClass(card), ok && "legal", on && "selected"],
            disabled: !ok || ctx.busy,
            "data-legal": ok && !on ? "card" : null,
            "aria-pressed": on ? "true" : "false",
            "aria-label": cardLabel(card),
            onclick: () => ctx.setUi({ picked: next }),
          },
          cardFace(card),
        );
      }),
    ),
  );
}

function players(view, ctx) {
  return h(
    "div",
    { class: "f-players" },
    view.hand_sizes.map((size, seat) => {
      const current = view.turn === seat;
      const recent = ctx.recent(seat);
      return h(
        "section",
        { class: ["f-player", current && "current", seat === ctx.you && "mine"], key: `p${seat}`, "aria-label": ctx.names(seat) },
        h(
          "header",
          null,
          h("strong", null, seat === ctx.you ? `${ctx.names(seat)} (you)` : ctx.names(seat)),
          current ? h("span", { class: "badge turn" }, "to play") : null,
        ),
        h(
          "span",
          { class: "f-backs", "aria-label": `${size} card${size === 1 ? "" : "s"} in hand` },
          Array.from({ length: Math.min(size, 12) }, (_, i) => h("span", { class: "f-back", key: i, "aria-hidden": "true" })),
          h("span", { class: "f-count" }, String(size)),
        ),
        recent ? h("p", { class: "recent", key: `recent-${recent}` }, recent) : null,
      );
    }),
  );
}

export function table(view, ctx) {
  const pick = ctx.spectator ? { picked: [], open: new Set(), plays: [] } : picking(view, ctx);
  return h(
    "div",
    { class: "f-table" },
    pendingBanner(view, ctx),
    center(view, ctx),
    ctx.spectator ? null : actionBar(view, ctx, pick),
    ctx.spectator ? null : hand(view, ctx, pick),
    players(view, ctx),
  );
}

export function prompt(view, ctx) {
  const legal = view.legal || [];
  const types = new Set(legal.map((a) => a.type));
  if (types.has("reverse_back")) return "A charged Swap hit you: reverse it back, or let it stand.";
  if (types.has("pass") && legal.length === 1) return "You can neither play nor draw: pass.";
  const p = view.pending;
  if (p && p.kind === "take") return `Stack a Take on it, or draw ${p.stack}.`;
  if (p && p.kind === "freeze") return "You are frozen: play a Freeze, discard Operations, or draw 1.";
  const picked = (ctx.ui.picked || []).length;
  if (picked) return "Add cards to your play, or choose one of the plays below.";
  return "Choose cards to play (highlighted), or draw.";
}

export const scoreName = "Cards left";

export function facts(view, seat) {
  const size = view.hand_sizes[seat];
  return size === undefined ? "" : `${size} card${size === 1 ? "" : "s"}`;
}

export function waiting(view, ctx) {
  if (view.over || view.turn === null) return "";
  const p = view.pending;
  if (p && p.kind === "take") return `${ctx.names(p.seat)} must stack a Take or draw ${p.stack}.`;
  if (p && p.kind === "freeze") return `${ctx.names(p.seat)} is frozen and must answer.`;
  if (p && p.kind === "charged_swap") return `${ctx.names(p.seat)} decides about a charged Swap.`;
  return `${ctx.names(view.turn)} is playing.`;
}

function floorWords(floor) {
  if (floor.shape === null && floor.number === null) return "open";
  return [floor.shape, floor.number].filter((x) => x !== null).join(" ");
}

export function describe(prev, next) {
  const c = prev.turn;
  if (c === null || c === undefined) return [];
  const before = prev.hand_sizes[c];
  const after = next.hand_sizes[c];
  const parts = [];
  const topChanged = JSON.stringify(prev.top) !== JSON.stringify(next.top);
  if (after < before && next.top) {
    const count = before - after;
    parts.push(count > 1 ? `played ${count} cards, ${cardLabel(next.top)} on top` : `played ${cardLabel(next.top)}`);
  } else if (after > before) {
    parts.push(prev.opener_grabbable && topChanged ? "grabbed the opener" : `drew ${after - before}`);
  }
  if (floorWords(prev.floor) !== floorWords(next.floor)) parts.push(`floor is now ${floorWords(next.floor)}`);
  if (prev.direction !== next.direction) parts.push("reversed the direction");
  if (!parts.length && next.turn !== c) parts.push("passed");
  return parts.length ? [{ seat: c, text: parts.join(", ") }] : [];
}

