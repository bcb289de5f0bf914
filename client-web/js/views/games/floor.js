// Floor's table, drawn from the view (rules/floor/views.py; its cards arrive as ids, which
// `decode` spells out first). The view's legal list is compact
// (rules/floor/options.py `to_wire`, "Legal actions in the view" in docs/rules/floor.md): it
// names which cards can start which play without multiplying choices out. Here the player
// picks cards from their hand; a card can be picked only while the picked set can still grow
// into one of the listed plays, and once it is a whole play the move buttons offer it (once
// per shape it may name).

import { h } from "../../dom.js";
import { find, flyFrom, pop, pulse } from "../../motion.js";
import { button, who, whoWithin } from "../common.js";
import { SENDING, isSending, withSending } from "./shared.js";
import { OPS, cap, cardBack, cardClass, cardFace, cardLabel, cardOf, cardPicture, digitNote, operate, sumText } from "./floor-cards.js";
import { shapeIcon, SHAPE_NAMES } from "./shapes.js";

export { cardLabel } from "./floor-cards.js";
export { howTo } from "./floor-howto.js";

// -- the view on the wire, spelled out -------------------------------------------------------

const decoded = new WeakMap();

/** The view as the table draws it: the hand and the top card arrive as card ids
 * (docs/rules/floor.md, "What a player sees") and are spelled out as cards (cardOf). An open
 * view (`open`: nothing hidden, "The open view") also brings every seat's hand: `hands`, one
 * list of cards per seat (else null). Worked out once per view. */
function decode(view) {
  if (decoded.has(view)) return decoded.get(view);
  const full = {
    ...view,
    hand: view.hand ? view.hand.map(cardOf) : view.hand,
    hands: view.open === true && Array.isArray(view.hands) ? view.hands.map((ids) => ids.map(cardOf)) : null,
    top: view.top === null || view.top === undefined ? view.top : cardOf(view.top),
  };
  decoded.set(view, full);
  decoded.set(full, full);
  return full;
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
                floor: entry.floor,
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

/**
 * The plays made of exactly the picked cards, each ready to send: `action`, `text` (what the
 * play does, in words: the button's label for screen readers), `face` (the button's short
 * content) and, for an Operation, its arithmetic (`sum`).
 */
function wholePlays(tpls, picked, byId) {
  const plays = [];
  const name = (id) => cardLabel(byId.get(id));
  const icon = (shape) => shapeIcon(shape, { size: "1.15em" });
  for (const t of tpls) {
    if (!fit(picked, t).whole) continue;
    switch (t.kind) {
      case "number": {
        const words = t.cards.map(name).join(" + ");
        for (const shape of t.shapes) {
          const many = t.shapes.length > 1;
          plays.push({
            action: { type: "number", cards: sorted(t.cards), shape },
            text: many ? `Play ${words}, new shape ${shape}` : `Play ${words}`,
            face: many ? ["Play ", icon(shape)] : "Play",
            shape,
          });
        }
        break;
      }
      case "operation": {
        const card = picked.find((id) => t.opCards.includes(id));
        const sum = sumText(t.op, t.floor, byId.get(t.operand).value);
        const riders = t.riders.length ? ` + ride ${t.riders.map((id) => byId.get(id).value).join(" + ")}` : "";
        const riderWords = t.riders.length ? `, with ${t.riders.map(name).join(" + ")} riding along` : "";
        for (const shape of t.shapes) {
          const many = t.shapes.length > 1;
          plays.push({
            action: { type: "operation", card, operand: t.operand, riders: sorted(t.riders), shape },
            text: `${OPS[t.op].word} ${name(t.operand)}: ${sum}${riderWords}${many ? `, new shape ${shape}` : ""}`,
            face: [`${sum}${riders}`, many ? [" ", icon(shape)] : null],
            sum,
            shape,
          });
        }
        break;
      }
      case "power":
        for (const shape of t.shapes) {
          plays.push({ action: { type: "power", card: t.cards[0], shape }, text: `Power: set the shape to ${shape}`, face: icon(shape), shape });
        }
        break;
      case "discard_operations":
        plays.push({ action: { type: "discard_operations", cards: sorted(t.cards) }, text: "Discard these Operations to break the Freeze", face: "Break the Freeze" });
        break;
      case "burn":
        plays.push({ action: { type: "burn", card: t.cards[0] }, text: "Burn the Swap and draw the bottom card", face: "Burn, draw bottom" });
        break;
      case "swap":
        plays.push({ action: { type: "swap", card: t.cards[0] }, text: "Play the Swap (reverse the direction)", face: "Play Swap" });
        break;
      default:
        plays.push({ action: { type: t.kind, card: t.cards[0] }, text: `Play the ${name(t.cards[0])}`, face: "Play" });
    }
  }
  return plays;
}

/** Moves that use no card from the hand: grab, draw, pass, answering a charged Swap. */
export function plainMoves(view) {
  view = decode(view);
  const out = [];
  const pending = view.pending;
  for (const entry of view.legal || []) {
    switch (entry.type) {
      case "grab":
        // Its face is one word: the card is in view on the pile, and beside a chosen play
        // (Play, ✕) and Draw it must keep one line in the narrow sideways tray.
        out.push({ action: { type: "grab" }, text: "Grab the opener", face: "Grab" });
        break;
      case "draw": {
        let text = entry.count === 1 ? "Draw" : `Draw ${entry.count}`;
        if (pending && pending.kind === "freeze") text = "Draw 1";
        if (pending && pending.kind === "take") text = `Draw ${entry.count}`;
        out.push({ action: { type: "draw" }, text });
        break;
      }
      case "pass":
        out.push({ action: { type: "pass" }, text: "Pass" });
        break;
      case "reverse_back":
        out.push({ action: { type: "reverse_back" }, text: "Reverse it back" });
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
  view = decode(view);
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
  return { picked: kept, open, plays, tpls, byId };
}

/** The hand cards an action in flight uses, so its play stays on screen marked "sending…". */
function cardsOfAction(action) {
  if (!action) return [];
  if (action.type === "number" || action.type === "discard_operations") return action.cards || [];
  if (action.type === "operation") return [action.card, action.operand, ...(action.riders || [])];
  return action.card === undefined ? [] : [action.card];
}

function picking(view, ctx) {
  if (ctx.spectator || !view.hand) return { picked: [], open: new Set(), plays: [], tpls: [], byId: new Map() };
  const inFlight = cardsOfAction(ctx.pending);
  return pickFrom(view, inFlight.length ? inFlight : ctx.ui.picked || []);
}

// -- words -------------------------------------------------------------------------------------

/** The one line saying why the highlighted cards are playable, or what the picked ones do. */
function hint(view, ctx, pick) {
  if (ctx.spectator || view.over) return null;
  const legal = view.legal || [];
  if (!legal.length) return null;
  const types = new Set(legal.map((e) => e.type));
  const p = view.pending;
  const floor = view.floor;
  if (types.has("reverse_back")) return "Charged Swap (you hold 2 cards): reverse it back and play next, or let it stand.";
  if (types.has("pass") && legal.length === 1) return "Nothing to play and nothing left to draw: you pass.";
  if (pick.picked.length) return pickedHint(view, pick);
  if (p && p.kind === "take") return `+${p.stack} is on you: stack any Take (the stack grows and passes on), or draw ${p.stack}.`;
  if (p && p.kind === "freeze") return "Frozen: answer with any Freeze, or discard 2 equal / 3 different Operations, or draw 1.";
  const reasons = [];
  if (types.has("grab")) return "You may grab the opener into your hand, or play as usual.";
  const shape = floor.shape ? cap(floor.shape) : null;
  if (types.has("number")) {
    const entry = legal.find((e) => e.type === "number");
    if (entry.plays.some((play) => play.cards.length === 1)) reasons.push(shape ? `${shape} Numbers (same shape)` : "any Number (shape open)");
    if (entry.plays.some((play) => play.cards.length > 1)) reasons.push(`Numbers adding up to ${floor.number}`);
  }
  if (types.has("operation")) reasons.push(`+ − × on ${floor.number}`);
  for (const [type, word] of [["freeze", "Freeze"], ["take", "Take"]]) {
    if (types.has(type)) reasons.push(shape ? `${shape} ${word}` : word);
  }
  if (types.has("swap")) reasons.push("Swap");
  if (types.has("power")) reasons.push("Power");
  if (types.has("burn")) reasons.push("burn your lone Swap");
  if (!reasons.length) return "No card fits the floor: draw one.";
  return `Playable: ${reasons.join(" · ")}`;
}

function pickedHint(view, pick) {
  const cards = pick.picked.map((id) => pick.byId.get(id));
  const floor = view.floor;
  const ops = cards.filter((c) => c.kind === "operation");
  const numbers = cards.filter((c) => c.kind === "number");
  if (ops.length && pick.tpls.some((t) => t.kind === "operation" && t.opCards.includes(ops[0].id))) {
    const op = ops[0].op;
    if (!numbers.length) return `${OPS[op].word}: pick the Number to ${op === "add" ? "add to" : op === "subtract" ? "take from" : "multiply"} ${floor.number}.`;
    const play = pick.plays.find((x) => x.sum);
    if (play) {
      const n = pick.byId.get(play.action.operand).value;
      const note = digitNote(op, floor.number, n);
      return `${play.sum}${note ? `: ${note}` : ""}. The floor becomes ${operate(op, floor.number, n).result}, shape ${cap(play.shape)}.`;
    }
    return "Add Numbers that add up to the result, or pick fewer.";
  }
  if (ops.length) return ops.length > 1 ? "Operations to break the Freeze: 2 of a kind or 3 different." : "Pick more Operations to break the Freeze.";
  if (numbers.length === 1 && pick.plays.length) {
    return `${cardLabel(numbers[0])} ${floor.shape ? "matches the floor shape" : "fits the open floor"}: the floor becomes ${numbers[0].value}.`;
  }
  if (numbers.length && !pick.tpls.some((t) => t.kind === "number" && fit(pick.picked, t).fits)) {
    // These Numbers only fit as an Operation's operand and riders: say which Operation.
    const ways = pick.tpls.filter((t) => t.kind === "operation" && fit(pick.picked, t).fits);
    const whole = ways.find((t) => t.cards.length === pick.picked.length);
    const signs = [...new Set(ways.map((t) => OPS[t.op].sign))].join(" or ");
    if (!whole) return `These fit an Operation (${signs}): pick it, or more Numbers.`;
    const n = pick.byId.get(whole.operand).value;
    const riders = whole.riders.map((id) => pick.byId.get(id).value);
    const ride = riders.length ? `; ${riders.join(" + ")} rides along` : "";
    const note = digitNote(whole.op, whole.floor, n);
    return `${sumText(whole.op, whole.floor, n)}${note ? ` (${note})` : ""}${ride}: now pick the ${OPS[whole.op].sign} card.`;
  }
  if (numbers.length) {
    const total = numbers.reduce((sum, c) => sum + c.value, 0);
    const words = numbers.map((c) => c.value).join(" + ");
    if (pick.plays.length) return `${words} = ${total}, the floor number ✓ ${pick.plays.length > 1 ? "choose the shape" : "play it"}`;
    return `${words}${numbers.length > 1 ? ` = ${total}` : ""} so far: add Numbers to make ${floor.number} exactly.`;
  }
  const card = cards[0];
  if (card.kind === "freeze") return "A Freeze: the next player must answer it or draw 1.";
  if (card.kind === "take") return `Take +${card.value}: the next player stacks a Take or draws the stack.`;
  if (card.kind === "swap") return pick.plays.some((p) => p.action.type === "burn") ? "Your last card is a Swap: burn it and draw the bottom card." : "Swap: the direction of play turns round.";
  if (card.kind === "power") return `Power: name any shape; the number stays ${floor.number === null ? "open" : floor.number}.`;
  return null;
}

// -- drawing -------------------------------------------------------------------------------------

function floorBox(view) {
  const { shape, number } = view.floor;
  const words = shape === null && number === null ? "open: anything goes" : `${shape === null ? "any shape" : shape}, ${number === null ? "any number" : number}`;
  return h(
    "div",
    { class: "f-floor", role: "img", "aria-label": `The floor: ${words}`, "data-anim": "floor" },
    h("span", { class: "pile-label" }, "Floor"),
    h(
      "span",
      { class: ["f-floor-face", shape && `s-${shape}`] },
      shape ? shapeIcon(shape, { size: "100%" }) : h("span", { class: "f-open" }, "any shape"),
      h("span", { class: ["f-floor-number", shape === "triangle" && "low"] }, number === null ? "?" : String(number)),
    ),
  );
}

function direction(view, ctx) {
  const seats = view.hand_sizes.map((_, i) => i);
  const order = view.direction === 1 ? seats : [...seats].reverse();
  return h(
    "div",
    { class: "f-direction", role: "img", "aria-label": `Direction of play: ${order.map(ctx.names).join(" then ")}` },
    h("span", { class: "f-arrow", "aria-hidden": "true", "data-anim": "direction" }, view.direction === 1 ? "↻" : "↺"),
    h("span", { class: "f-dir-words" }, view.direction === 1 ? "up" : "down"),
  );
}

/** What is pending against someone, always one reserved line so the piles never move. */
function pendingLine(view, ctx) {
  const p = view.pending;
  let body = null;
  let kind = "none";
  if (p && p.kind === "take") {
    kind = "take";
    body = [
      h("span", { class: "f-stack", "data-anim": "stack", key: `stack${p.stack}` }, `+${p.stack}`),
      ` ${who(p.seat, ctx)} ${p.seat === ctx.you ? "stack" : "stacks"} a Take or ${p.seat === ctx.you ? "draw" : "draws"} ${p.stack}`,
    ];
  } else if (p && p.kind === "freeze") {
    kind = "freeze";
    body = [h("span", { class: "f-stack" }, "❄"), ` Frozen: ${whoWithin(p.seat, ctx)} must answer`];
  } else if (p && p.kind === "charged_swap") {
    kind = "swap";
    body = [h("span", { class: "f-stack" }, "⇄"), ` Charged Swap: ${whoWithin(p.seat, ctx)} ${p.seat === ctx.you ? "decide" : "decides"}`];
  } else if (view.opener_grabbable) {
    kind = "grab";
    body = "The opener may be grabbed.";
  }
  return h("p", { class: ["f-pending", `p-${kind}`], "data-anim": "pending", "aria-live": "off" }, body || "\u00a0");
}

function middle(view, ctx) {
  const top = view.top;
  return h(
    "div",
    { class: "f-table" },
    h(
      "div",
      { class: "f-piles" },
      floorBox(view),
      h(
        "div",
        { class: "f-top" },
        h("span", { class: "pile-label" }, `Pile · ${view.discard_size}`),
        top
          ? cardPicture(top, { "aria-label": `Top card: ${cardLabel(top)}`, "data-anim": "discard", "data-card": top.id })
          : h("span", { class: "card f-card empty", "data-anim": "discard" }),
      ),
      h(
        "div",
        { class: "f-drawpile", role: "img", "aria-label": `Draw pile: ${view.draw_size} cards` },
        h("span", { class: "pile-label" }, `Draw · ${view.draw_size}`),
        cardBack({ "data-anim": "draw" }),
      ),
      direction(view, ctx),
    ),
    pendingLine(view, ctx),
  );
}

function moves(view, ctx, pick) {
  if (ctx.spectator || view.over) return null;
  const act = (action) => () => {
    if (!ctx.busy) ctx.act(action);
  };
  const items = pick.plays.map((play, i) =>
    button(withSending(play.face, isSending(ctx, play.action)), act(play.action), {
      class: ["primary", "f-move", play.shape && "f-shape-move", isSending(ctx, play.action) && SENDING],
      "data-legal": "move",
      key: `m${i}`,
      "aria-label": play.text,
    }),
  );
  if (pick.picked.length && !ctx.pending) {
    items.push(button("✕", () => ctx.setUi({ picked: [] }), { class: "f-move", key: "clear", "aria-label": "Clear the selection" }));
  }
  // Chosen cards that leave a choice (a Power's shape, which shape a set leaves, an
  // Operation's result) show just the choices and ✕: beside Draw and Grab they would wrap to a
  // second line, which the sideways tray has no room for. ✕ brings the plain moves back.
  const choosing = pick.plays.length > 1;
  for (const move of choosing ? [] : plainMoves(view)) {
    items.push(
      button(withSending(move.face || move.text, isSending(ctx, move.action)), act(move.action), {
        class: ["f-move", isSending(ctx, move.action) && SENDING],
        "data-legal": "general",
        key: `g-${move.action.type}`,
        "aria-label": move.face ? move.text : null,
      }),
    );
  }
  return h("div", { class: "f-moves", role: "group", "aria-label": "Your moves" }, items);
}

/** One row up to eight cards, then two, overlapping to fit: each card shows at least its corner
 * and stays big enough to tap. */
function rowsOf(cards) {
  const rows = cards.length <= 8 ? 1 : 2;
  const per = Math.ceil(cards.length / rows) || 1;
  const out = [];
  for (let i = 0; i < cards.length; i += per) out.push(cards.slice(i, i + per));
  return out.length ? out : [[]];
}

function hand(view, ctx, pick) {
  if (ctx.spectator || !view.hand) return null;
  const cards = [...view.hand].sort((a, b) => a.id - b.id);
  const rows = rowsOf(cards);
  return h(
    "section",
    { class: "f-hand", "aria-label": `Your hand: ${cards.length} card${cards.length === 1 ? "" : "s"}`, style: `--rows: ${rows.length}` },
    rows.map((row, r) =>
      h(
        "div",
        { class: "f-row", key: `r${r}`, style: `--n: ${row.length}` },
        row.map((card) => {
          const on = pick.picked.includes(card.id);
          const ok = on || pick.open.has(card.id);
          const next = on ? pick.picked.filter((id) => id !== card.id) : [...pick.picked, card.id];
          return h(
            "button",
            {
              type: "button",
              key: `h${card.id}`,
              class: [...cardClass(card), ok && "legal", on && "selected"],
              disabled: !ok,
              "data-legal": ok && !on ? "card" : null,
              "data-anim": `hand-${card.id}`,
              "aria-pressed": on ? "true" : "false",
              "aria-label": cardLabel(card),
              onclick: () => {
                if (!ctx.pending) ctx.setUi({ picked: next });
              },
            },
            cardFace(card),
          );
        }),
      ),
    ),
  );
}

export function table(view, ctx) {
  view = decode(view);
  remember(view);
  const pick = picking(view, ctx);
  return {
    middle: middle(view, ctx),
    tray: hand(view, ctx, pick),
    moves: moves(view, ctx, pick),
    hint: hint(view, ctx, pick),
  };
}

/** An open view's hand in the strip: mini cards (their corners) in up to three lines of at
 * most eight, overlapping to fit the seat's width. */
function seatHand(cards, s, ctx) {
  const sortedCards = [...cards].sort((a, b) => a.id - b.id);
  const count = Math.min(3, Math.max(1, Math.ceil(sortedCards.length / 8)));
  const per = Math.ceil(sortedCards.length / count) || 1;
  const lines = [];
  for (let i = 0; i < sortedCards.length; i += per) lines.push(sortedCards.slice(i, i + per));
  return h(
    "span",
    { class: "f-seat-hand", role: "list", "aria-label": `${ctx.names(s)}'s hand: ${sortedCards.map(cardLabel).join(", ") || "empty"}` },
    lines.map((line, i) =>
      h(
        "span",
        { class: "f-seat-line", key: `l${i}`, style: `--n: ${line.length}` },
        line.map((card) => cardPicture(card, { role: "listitem", key: `h${card.id}`, class: "mini", "data-anim": `mini-hand-${s}-${card.id}` })),
      ),
    ),
  );
}

/** A player's compact facts for the strip: a fan of backs (an open view: the cards), the
 * count, what hits them. */
export function seat(view, s, ctx) {
  view = decode(view);
  const size = view.hand_sizes[s];
  const p = view.pending;
  let mark = null;
  if (p && p.seat === s) {
    if (p.kind === "take") mark = h("span", { class: "f-badge take" }, `+${p.stack}`);
    else if (p.kind === "freeze") mark = h("span", { class: "f-badge freeze" }, "❄ frozen");
    else if (p.kind === "charged_swap") mark = h("span", { class: "f-badge swap" }, "⇄ decides");
  }
  const shown = view.hands && view.hands[s];
  if (shown) {
    return h(
      "span",
      { class: "f-seat open", "data-anim": `seat-${s}` },
      h("span", { class: "f-count" }, `${size} card${size === 1 ? "" : "s"}`),
      size === 1 ? h("span", { class: "f-badge last" }, "last card!") : null,
      mark,
      seatHand(shown, s, ctx),
    );
  }
  return h(
    "span",
    { class: "f-seat", "data-anim": `seat-${s}`, "aria-label": `${size} card${size === 1 ? "" : "s"}${ctx && s === ctx.you ? " (you)" : ""}` },
    h(
      "span",
      { class: "f-backs", "aria-hidden": "true" },
      Array.from({ length: Math.min(size, 6) }, (_, i) => h("span", { class: "f-back", key: i })),
    ),
    h("span", { class: "f-count" }, `${size}`),
    size === 1 ? h("span", { class: "f-badge last" }, "last card!") : null,
    mark,
  );
}

// -- the move feed --------------------------------------------------------------------------------

// Events name an Operation's operand and result but not the Floor Number it worked on. For Add
// and Subtract that number follows from the two; for Multiply it may not (× 2: 3 and 8 both
// give 6), so the Floor Number is followed: from the last view drawn (the frame puts a state's
// events in words before drawing its view), then through the events themselves.
let floorNow = null;
let lastView = null;
const said = new WeakMap();

function remember(view) {
  if (view === lastView) return;
  lastView = view;
  floorNow = view.floor.number;
}

function floorBeforeOperation(op, n, result) {
  const fits = [];
  for (let f = 0; f < 10; f += 1) if (operate(op, f, n).result === result) fits.push(f);
  if (fits.length === 1) return fits[0];
  return fits.includes(floorNow) ? floorNow : null;
}

function named(ids) {
  return ids.map((id) => cardLabel(cardOf(id))).join(" + ");
}

function eventLine(event, ctx) {
  const you = (s) => s === ctx.you;
  const name = (s) => who(s, ctx);
  const s = event.seat;
  switch (event.type) {
    case "played_numbers": {
      const cards = event.cards.map(cardOf);
      if (cards.length === 1) return `${name(s)} played ${cardLabel(cards[0])}: the floor is ${event.floor.number}`;
      const total = cards.reduce((sum, c) => sum + c.value, 0);
      return `${name(s)} played ${cards.map((c) => c.value).join(" + ")} = ${total} (${named(event.cards)}), shape ${cap(event.floor.shape)}`;
    }
    case "played_operation": {
      const op = cardOf(event.card).op;
      const operand = cardOf(event.operand);
      const result = event.floor.number;
      // Events since the Floor Number's origin was added say it; older ones are worked out.
      const f = Number.isInteger(event.from) ? event.from : floorBeforeOperation(op, operand.value, result);
      const sum = f === null ? `${OPS[op].sign} ${operand.value} → ${result}` : sumText(op, f, operand.value);
      const riders = event.riders.length ? `, with ${named(event.riders)}` : "";
      return `${name(s)} played ${OPS[op].word} ${cardLabel(operand)}: ${sum}${riders}`;
    }
    case "played_freeze":
      return `${name(s)} played a ${cap(cardOf(event.card).shape)} Freeze`;
    case "froze_back":
      return `${name(s)} froze back with a ${cap(cardOf(event.card).shape)} Freeze`;
    case "frozen":
      return `Frozen: ${whoWithin(s, ctx)} must answer`;
    case "stayed_frozen":
      return `${name(s)} stayed frozen and lost the turn`;
    case "broke_freeze":
      return `${name(s)} broke the Freeze with ${event.cards.length} Operations`;
    case "played_take":
      return `${name(s)} played Take +${cardOf(event.card).value}: stack is ${event.stack}`;
    case "take_pending":
      return `Take +${event.stack}: ${whoWithin(s, ctx)} ${you(s) ? "stack" : "stacks"} or ${you(s) ? "draw" : "draws"} ${event.stack}`;
    case "played_swap":
      return `${name(s)} played a Swap: play now goes ${event.direction === 1 ? "up" : "down"} the seats`;
    case "charged_swap":
      return `Charged Swap! ${name(s)} may reverse it back`;
    case "reversed_back":
      return `${name(s)} reversed the Swap back`;
    case "let_stand":
      return `${name(s)} let the Swap stand`;
    case "played_power":
      return `${name(s)} played a Power: the shape is ${cap(event.shape)}`;
    case "burnt_swap":
      return `${name(s)} burnt a Swap`;
    case "drew":
      if (event.count === 0) return `${name(s)} had nothing to draw`;
      if (event.bottom) return `${name(s)} drew the bottom card`;
      return `${name(s)} drew ${event.count === 1 ? "a card" : `${event.count} cards`}`;
    case "grabbed":
      return `${name(s)} grabbed the ${cardLabel(cardOf(event.card))} opener`;
    case "passed":
      return `${name(s)} passed`;
    case "reshuffled":
      return `Deck reshuffled: ${event.draw_size} cards to draw`;
    case "game_over": {
      const winners = (event.winners || []).map((w) => who(w, ctx));
      if (winners.length === 1) return `${winners[0]} ${winners[0] === "You" ? "win" : "wins"}!`;
      return winners.length ? `${winners.join(" and ")} share the win` : "Game over";
    }
    default:
      return null; // "turn": the banner and the strip say whose move it is
  }
}

export function eventText(event, _seat, ctx) {
  if (said.has(event)) return said.get(event);
  const text = eventLine(event, ctx);
  if (event.type === "played_numbers" || event.type === "played_operation") floorNow = event.floor.number;
  // Said once, the same on every redraw (the floor it was worked out from moves on).
  if (event && typeof event === "object") said.set(event, text);
  return text;
}

// -- motion --------------------------------------------------------------------------------------

const PLAYS = new Set(["played_numbers", "played_operation", "played_freeze", "froze_back", "played_take", "played_swap", "played_power", "broke_freeze", "burnt_swap"]);

export function animate(entries, { root, before, ctx }) {
  const last = entries[entries.length - 1];
  if (!last) return;
  const events = last.events || [];
  const types = new Set(events.map((e) => e.type));
  const pile = find(root, "discard");
  const played = events.find((e) => PLAYS.has(e.type));
  if (played && pile) {
    // Hand → pile: from the card's old place in my hand, else from the player's seat.
    const from = before.get(`hand-${pile.dataset.card}`) || before.get(`seat-${played.seat}`);
    if (!from || !flyFrom(pile, from)) pop(pile);
  }
  const drew = events.find((e) => e.type === "drew");
  if (drew) {
    const deck = before.get("draw");
    if (drew.seat === ctx.you && root) {
      // Pile → hand: every card of my hand that was not there before.
      for (const el of root.querySelectorAll('[data-anim^="hand-"]')) {
        if (!before.has(el.dataset.anim)) flyFrom(el, deck);
      }
    } else {
      pulse(find(root, `seat-${drew.seat}`));
    }
  }
  if (types.has("take_pending")) pop(find(root, "stack"));
  if (types.has("frozen") || types.has("charged_swap")) pulse(find(root, "pending"));
  if (types.has("played_swap") || types.has("reversed_back")) pulse(find(root, "direction"));
  if (types.has("reshuffled")) pulse(find(root, "draw"));
  if (types.has("played_numbers") || types.has("played_operation") || types.has("played_power")) pulse(find(root, "floor"));
}

// -- the banner's words ------------------------------------------------------------------------------

/** What to do now, for the turn banner: short (two banner lines on a 320 px phone); the hint
 * line says why. */
export function prompt(view, ctx) {
  view = decode(view);
  const legal = view.legal || [];
  const types = new Set(legal.map((a) => a.type));
  if (types.has("reverse_back")) return "Charged Swap: reverse it back, or let it stand.";
  if (types.has("pass") && legal.length === 1) return "You can neither play nor draw: pass.";
  const p = view.pending;
  if (p && p.kind === "take") return `Stack a Take on it, or draw ${p.stack}.`;
  if (p && p.kind === "freeze") return "Frozen: answer it, or draw 1.";
  if ((ctx.ui.picked || []).length) return "Add cards, or make the play below.";
  return "Tap a highlighted card, or draw.";
}

export const scoreName = "Cards left";

export function facts(view, s) {
  view = decode(view);
  const size = view.hand_sizes[s];
  return size === undefined ? "" : `${size} card${size === 1 ? "" : "s"}`;
}

export function waiting(view, ctx) {
  view = decode(view);
  if (view.over || view.turn === null) return "";
  const p = view.pending;
  if (p && p.kind === "take") return `${ctx.names(p.seat)} must stack a Take or draw ${p.stack}.`;
  if (p && p.kind === "freeze") return `${ctx.names(p.seat)} is frozen and must answer.`;
  if (p && p.kind === "charged_swap") return `${ctx.names(p.seat)} decides about a charged Swap.`;
  return `${ctx.names(view.turn)} is playing.`;
}
