// The table as the live room (./room.js) and the replay viewer (./replay.js) both draw it: the
// game module's context and regions, the players strip across the top, the results' headline,
// summary and reason. Each caller lays these out in its own frame.

import { h } from "../dom.js";
import { listNames } from "./common.js";

/**
 * What a game module may read and do (./games/index.js): the seat whose table it is (`you`,
 * null for a spectator), `names(seat)`, and whatever the caller has beyond the read-only
 * defaults here: no choices in progress, no move possible, no turn timer.
 */
export function gameCtx({ you = null, names, ...more }) {
  return {
    you,
    spectator: you === null,
    names,
    ui: {},
    setUi() {},
    act() {},
    busy: true,
    pending: null,
    deadlineAt: null,
    away: false,
    ...more,
  };
}

/** A game module's table as its four regions (./games/index.js, `table`); one that fails to
 * draw says so in the middle (the rest of the page still works). */
export function tableParts(module, view, ctx, failed = "The table could not be drawn.") {
  try {
    const drawn = module.table(view, ctx);
    return { middle: drawn.middle || null, tray: drawn.tray || null, moves: drawn.moves || null, hint: drawn.hint || null };
  } catch (error) {
    console.error("could not draw the table", error);
    return { middle: h("p", { class: "error" }, failed), tray: null, moves: null, hint: null };
  }
}

/** The middle while there is no table to draw yet, or none this client can draw. */
export function noTable(gameId, known) {
  return known
    ? h("p", { class: "muted" }, "Setting up the table…")
    : h("p", { class: "error" }, `This client cannot draw the game "${gameId}" yet.`);
}

/**
 * The players across the top, all but the seat whose table it is: name, presence, turn mark,
 * and the game's facts for each (`seat()`). `describe(seat, index, turn)` says what the caller
 * knows of a seat: `{status, name}` (status: a presence class, "online", "bot"…) and `extra`
 * (nodes after the head: a presence line, a clock), and `key`, the seat's key for the patch.
 */
export function seatStrip(seats, view, ctx, module, describe) {
  const others = seats.map((seat, index) => ({ seat, index })).filter(({ index }) => index !== ctx.you);
  return h(
    "ul",
    { class: "table-strip", "aria-label": ctx.spectator ? "Players" : "Other players", key: "strip" },
    others.map(({ seat, index }) => {
      const turn = Boolean(view && view.to_act.includes(index) && !view.over);
      const { status, name, extra = null, key } = describe(seat, index, turn);
      let facts = null;
      try {
        if (view && module) facts = module.seat(view, index, ctx);
      } catch (error) {
        console.error("could not draw a seat", error);
      }
      return h(
        "li",
        { class: ["strip-seat", turn && "turn", status], key, "data-seat": String(index) },
        h(
          "div",
          { class: "strip-head" },
          h("span", { class: ["presence", status], "aria-hidden": "true" }),
          h("span", { class: "seat-name", title: seat.name }, name),
          turn ? h("span", { class: "turn-mark", title: "to play" }, h("span", { "aria-hidden": "true" }, "▶"), h("span", { class: "visually-hidden" }, " to play")) : null,
        ),
        extra,
        facts ? h("div", { class: "strip-facts" }, facts) : null,
      );
    }),
  );
}

/** "Ana wins!", "You win!", "Ana and Ben share the win!" (`name(seat)` says each winner). */
export function winHeadline(result, name) {
  const winners = result.winners.map(name);
  if (winners.length !== 1) return `${listNames(winners)} share the win!`;
  return `${winners[0]} ${winners[0] === "You" ? "win" : "wins"}!`;
}

/** The game's own extra for the results (Number Swap's rounds), or null. */
export function gameSummary(module, view, ctx) {
  try {
    return module && module.summary ? module.summary(view, ctx) : null;
  } catch (error) {
    console.error("could not draw the game's summary", error);
    return null;
  }
}

/** The server's reason may name seats ("Seat 3 reached 99 points"): say their names. */
export function namedReason(reason, seats) {
  return String(reason || "").replace(/\bSeat (\d+)\b/g, (all, n) => {
    const seat = seats[Number(n) - 1];
    return seat ? seat.name : all;
  });
}
