// Warp 99's table, drawn from the view (rules/warp99/views.py; docs/rules/warp99.md).
// Every card shows its colour's name and symbol, never the colour alone.

import { h } from "../../dom.js";
import { button } from "../common.js";

const STEPS = [
  ["A", "Row"],
  ["B", "Piles"],
  ["C", "Refill"],
];

export function cardLabel(card) {
  return `${card.colour_name} ${card.value}`;
}

function cardFace(card) {
  return [
    h("span", { class: "w-value" }, String(card.value)),
    h("span", { class: "w-symbol", "aria-hidden": "true" }, card.symbol),
    h("span", { class: "w-name", "aria-hidden": "true" }, card.colour_name),
  ];
}

function cardPicture(card, props = {}) {
  return h(
    "span",
    { role: "img", "aria-label": cardLabel(card), ...props, class: ["w-card", `c-${card.colour}`, props.class] },
    cardFace(card),
  );
}

function legalOf(view) {
  const legal = view.legal || [];
  return {
    score: legal.find((a) => a.type === "score_row"),
    adds: legal.filter((a) => a.type === "add_to_row"),
    plays: legal.filter((a) => a.type === "play_to_pile"),
    flips: legal.filter((a) => a.type === "flip_rule"),
    end: legal.find((a) => a.type === "end_step"),
  };
}

function usable(L, id) {
  return L.adds.some((a) => a.card === id) || L.plays.some((a) => a.card === id);
}

function selected(view, ctx) {
  const L = legalOf(view);
  const id = ctx.ui.card;
  return id !== undefined && id !== null && usable(L, id) ? id : null;
}

function ruleCards(view, ctx) {
  const L = legalOf(view);
  return h(
    "div",
    { class: "w-rules", role: "group", "aria-label": "Rule cards" },
    view.rules.map((rule) => {
      const flip = L.flips.find((a) => a.rule === rule.card);
      return h(
        "div",
        { class: ["w-rule", `side-${rule.side}`], key: `rule${rule.card}` },
        h("span", { class: "w-rule-side" }, `Card ${rule.card + 1} · side ${rule.side}`),
        h("strong", { class: "w-rule-name" }, rule.name),
        flip
          ? button("Flip", () => ctx.act(flip), {
              class: "legal",
              "data-legal": "flip",
              disabled: ctx.busy,
              "aria-label": `Flip rule card ${rule.card + 1} (now ${rule.name})`,
            })
          : null,
      );
    }),
    view.over
      ? null
      : h(
          "p",
          { class: "w-flip-note muted" },
          view.flip_used ? "The stuck-flip has been used this turn." : "The stuck-flip is still available this turn.",
        ),
  );
}

function piles(view, ctx) {
  const L = legalOf(view);
  const chosen = selected(view, ctx);
  return h(
    "div",
    { class: "w-piles" },
    view.piles.map((pile, index) => {
      const play = chosen === null ? null : L.plays.find((a) => a.card === chosen && a.pile === index);
      const inner = [
        h("span", { class: "pile-label" }, `Pile ${index + 1} · ${pile.size}`),
        cardPicture(pile.top, { role: null, "aria-label": null }),
      ];
      if (play) {
        return h(
          "button",
          {
            type: "button",
            class: "w-pile legal",
            key: `pile${index}`,
            "data-legal": "pile",
            disabled: ctx.busy,
            onclick: () => ctx.act(play),
            "aria-label": `Play the ${cardLabel(view.hand.find((c) => c.id === chosen))} on pile ${index + 1} (top: ${cardLabel(pile.top)})`,
          },
          inner,
        );
      }
      return h(
        "div",
        { class: "w-pile", key: `pile${index}`, role: "img", "aria-label": `Pile ${index + 1}: ${cardLabel(pile.top)} on top, ${pile.size} cards` },
        inner,
      );
    }),
    h(
      "div",
      { class: "w-supply muted" },
      h("span", null, `Reserve · ${view.reserve_size}`),
      h("span", null, `Scored · ${view.scored_size}`),
    ),
  );
}

function stepTrack(view, ctx) {
  return h(
    "ol",
    { class: "w-steps", "aria-label": `${ctx.names(view.turn)}'s turn, step ${view.step}` },
    STEPS.map(([step, name]) =>
      h(
        "li",
        { key: step, class: step === view.step && "now", "aria-current": step === view.step ? "step" : null },
        h("strong", null, step),
        ` ${name}`,
      ),
    ),
  );
}

function actionBar(view, ctx) {
  const L = legalOf(view);
  const chosen = selected(view, ctx);
  const busy = ctx.busy;
  const items = [];
  if (chosen !== null) {
    const card = view.hand.find((c) => c.id === chosen);
    const add = L.adds.find((a) => a.card === chosen);
    if (add) items.push(button(`Add ${cardLabel(card)} to my row`, () => ctx.act(add), { class: "primary", "data-legal": "move", disabled: busy }));
    for (const play of L.plays.filter((a) => a.card === chosen)) {
      items.push(
        button(`Play ${cardLabel(card)} on pile ${play.pile + 1}`, () => ctx.act(play), {
          class: "primary",
          "data-legal": "move",
          disabled: busy,
          key: `play${play.pile}`,
        }),
      );
    }
  }
  if (L.score) {
    const row = view.players[ctx.you].row.length;
    items.push(button(`Score my row (${row} card${row === 1 ? "" : "s"})`, () => ctx.act(L.score), { "data-legal": "score", disabled: busy }));
  }
  if (L.end) {
    const label = view.step === "C" ? "Draw up to six and end my turn" : `End step ${view.step}`;
    items.push(button(label, () => ctx.act(L.end), { "data-legal": "end", disabled: busy }));
  }
  return items.length ? h("div", { class: "action-bar" }, items) : null;
}

function hand(view, ctx) {
  if (!view.hand) return null;
  const L = legalOf(view);
  const chosen = selected(view, ctx);
  return h(
    "section",
    { class: "w-hand", "aria-label": "Your hand" },
    h("h2", { class: "small-title" }, `Your hand (${view.hand.length})`),
    h(
      "div",
      { class: "hand-cards" },
      view.hand.map((card) => {
        const ok = usable(L, card.id);
        const on = chosen === card.id;
        return h(
          "button",
          {
            type: "button",
            key: `h${card.id}`,
            class: ["w-card", `c-${card.colour}`, ok && "legal", on && "selected"],
            disabled: !ok || ctx.busy,
            "data-legal": ok ? (on ? "chosen" : "card") : null,
            "aria-pressed": on ? "true" : "false",
            "aria-label": cardLabel(card),
            onclick: () => ctx.setUi({ card: on ? null : card.id }),
          },
          cardFace(card),
        );
      }),
    ),
  );
}

function row(player, ctx) {
  return h(
    "div",
    { class: "w-row", role: "list", "aria-label": `${ctx.names(player.seat)}'s row` },
    player.row.length
      ? player.row.map((card) => cardPicture(card, { role: "listitem", key: `r${card.id}`, class: "small" }))
      : h("span", { class: "muted" }, "empty row"),
  );
}

function playerBox(view, ctx, player, mine) {
  const current = view.turn === player.seat && !view.over;
  const recent = ctx.recent(player.seat);
  return h(
    "section",
    { class: ["w-player", mine && "mine", current && "current"], key: `p${player.seat}`, "aria-label": ctx.names(player.seat) },
    h(
      "header",
      null,
      h("strong", null, mine ? `${ctx.names(player.seat)} (you)` : ctx.names(player.seat)),
      current ? h("span", { class: "badge turn" }, `step ${view.step}`) : null,
      h("span", { class: "w-counts" }, `hand ${player.hand_size} · deck ${player.deck_size}`),
    ),
    h(
      "div",
      { class: "w-score" },
      h("progress", { max: view.target, value: Math.min(player.score, view.target), "aria-label": `${ctx.names(player.seat)}: ${player.score} of ${view.target} points` }),
      h("span", null, `${player.score} / ${view.target}`),
    ),
    row(player, ctx),
    recent ? h("p", { class: "recent", key: `recent-${recent}` }, recent) : null,
  );
}

export function table(view, ctx) {
  const mine = ctx.spectator ? null : view.players[ctx.you];
  const others = view.players.filter((p) => !mine || p.seat !== mine.seat);
  return h(
    "div",
    { class: "w-table" },
    h("div", { class: "game-status" }, view.over ? null : stepTrack(view, ctx), h("span", null, `First to ${view.target} points wins`)),
    ruleCards(view, ctx),
    piles(view, ctx),
    actionBar(view, ctx),
    mine ? playerBox(view, ctx, mine, true) : null,
    hand(view, ctx),
    h("div", { class: "w-others" }, others.map((p) => playerBox(view, ctx, p, false))),
  );
}

export function prompt(view, ctx) {
  const L = legalOf(view);
  if (view.step === "A") {
    if (L.adds.length && L.score) return "Step A: choose a card to add to your row, or score your row first.";
    if (L.adds.length) return "Step A: choose a card to add to your row.";
    if (L.score) return "Step A: no card fits your row, so score it.";
    return "Step A: your hand is empty: end this step.";
  }
  if (view.step === "B") {
    if (L.flips.length) return "Step B: nothing fits the piles. You may flip one rule card, or end this step.";
    if (L.plays.length) return "Step B: play cards onto the piles one at a time, or end this step.";
    return "Step B: nothing fits the piles: end this step.";
  }
  return "Step C: draw back up to six to end your turn.";
}

export const scoreName = "Points";

export function facts(view, seat) {
  const p = view.players[seat];
  return p ? `${p.score} pts · hand ${p.hand_size}` : "";
}

export function waiting(view, ctx) {
  if (view.over) return "";
  return `${ctx.names(view.turn)} is playing step ${view.step}.`;
}

export function describe(prev, next) {
  const c = prev.turn;
  if (c === null || c === undefined) return [];
  const parts = [];
  prev.rules.forEach((rule, i) => {
    if (next.rules[i].side !== rule.side) parts.push(`flipped ${rule.name} to ${next.rules[i].name}`);
  });
  const before = prev.players[c];
  const after = next.players[c];
  if (after.row.length === 0 && before.row.length > 0) {
    parts.push(`scored a row of ${before.row.length}`);
  } else if (after.row.length > before.row.length) {
    parts.push(`added ${cardLabel(after.row[after.row.length - 1])} to their row`);
  }
  next.piles.forEach((pile, i) => {
    if (pile.size > prev.piles[i].size) parts.push(`played ${cardLabel(pile.top)} on pile ${i + 1}`);
  });
  const gained = after.score - before.score;
  if (gained > 0) parts.push(`+${gained} points`);
  if (!parts.length && next.turn !== c) parts.push("drew up to six");
  return parts.length ? [{ seat: c, text: parts.join(", ") }] : [];
}
