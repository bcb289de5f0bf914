// The work every peer does per action: a plain-JavaScript Number Swap shared by the Colyseus
// room, the boardgame.io game and their load generators (issue 32).
//
// Parlor's deck (150 cards, -2..12), a 4x3 grid of twelve cards per seat dealt face down with
// two turned up, one seat to act, and Parlor's turn actions: draw; then swap_drawn or
// discard_drawn (turning up a face-down card); or take_discard. A round ends one turn each
// after a grid is all face up; a game ends at 100 points and the next is dealt at once.
// Left out (so each action is a little cheaper here than in Parlor's rules): the opening
// flips, column clearing, undo, the ender's doubling, and the pick of next round's flips.
//
// What is hidden: another seat's face-down cards. Unlike Parlor's Number Swap (where a
// face-down card is hidden from its owner too, and views differ only in the legal moves), a
// seat here sees the values of its own face-down cards, so that each framework's per-seat
// filtering has something to filter.

export const SEATS = 8;
export const GRID = 12;
export const TARGET = 100;
/** A face-down cell as a seat that may not see it receives it. */
export const DOWN = -99;

const COUNTS = [[-2, 5], [-1, 10], [0, 15]];
for (let v = 1; v <= 12; v++) COUNTS.push([v, 10]);
export const DECK = COUNTS.flatMap(([v, n]) => Array(n).fill(v));

/** A small seeded generator (mulberry32): every run deals the same games. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(cards, random) {
  for (let i = cards.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/** A new game: plain data (JSON-safe), dealt. `seed` makes the deals. */
export function newGame(seats, seed) {
  const game = {
    seats,
    seed,
    deals: 0,
    scores: Array(seats).fill(0),
    grids: [],
    up: [],
    pile: [],
    discard: [],
    drawn: null,
    toAct: 0,
    ender: -1,
    lastTurns: 0,
    // 0 is "no game yet" (Colyseus's default before the deal).
    version: 1,
  };
  deal(game);
  return game;
}

function deal(game) {
  const random = rng(game.seed * 1000 + game.deals++);
  const pile = shuffle([...DECK], random);
  game.grids = [];
  game.up = [];
  for (let s = 0; s < game.seats; s++) {
    game.grids.push(pile.splice(0, GRID));
    const up = Array(GRID).fill(false);
    up[0] = up[1] = true;
    game.up.push(up);
  }
  game.discard = [pile.pop()];
  game.pile = pile;
  game.drawn = null;
  game.ender = -1;
  game.lastTurns = 0;
}

/** The actions `seat` may take now (what a client works out from its own view). */
export function legal(view, seat) {
  if (view.toAct !== seat) return [];
  const down = [];
  view.grids[seat].forEach((v, p) => !view.up[seat][p] && down.push(p));
  const all = [...Array(GRID).keys()];
  if (view.drawn === null) {
    return [{ type: "draw" }, ...all.map((position) => ({ type: "take_discard", position }))];
  }
  return [
    ...all.map((position) => ({ type: "swap_drawn", position })),
    ...down.map((flip) => ({ type: "discard_drawn", flip })),
  ];
}

function valid(game, seat, action) {
  if (seat !== game.toAct || action === null || typeof action !== "object") return false;
  const cell = (p) => Number.isInteger(p) && p >= 0 && p < GRID;
  switch (action.type) {
    case "draw":
      return game.drawn === null;
    case "take_discard":
      return game.drawn === null && cell(action.position);
    case "swap_drawn":
      return game.drawn !== null && cell(action.position);
    case "discard_drawn":
      return game.drawn !== null && cell(action.flip) && !game.up[seat][action.flip];
    default:
      return false;
  }
}

/** Apply `seat`'s `action` to `game` (mutated); false, and nothing changed, if not allowed. */
export function apply(game, seat, action) {
  if (!valid(game, seat, action)) return false;
  const grid = game.grids[seat];
  const up = game.up[seat];
  game.version++;
  if (action.type === "draw") {
    if (game.pile.length === 0) {
      const top = game.discard.pop();
      game.pile = shuffle(game.discard, rng(game.version));
      game.discard = [top];
    }
    game.drawn = game.pile.pop();
    return true;
  }
  if (action.type === "discard_drawn") {
    game.discard.push(game.drawn);
    game.drawn = null;
    up[action.flip] = true;
  } else {
    const card = action.type === "take_discard" ? game.discard.pop() : game.drawn;
    game.drawn = null;
    game.discard.push(grid[action.position]);
    grid[action.position] = card;
    up[action.position] = true;
  }
  endTurn(game, seat);
  return true;
}

function endTurn(game, seat) {
  if (game.ender < 0 && game.up[seat].every(Boolean)) {
    game.ender = seat;
    game.lastTurns = game.seats - 1;
  } else if (game.ender >= 0) {
    game.lastTurns--;
  }
  if (game.ender >= 0 && game.lastTurns === 0) {
    const next = (game.ender + 1) % game.seats;
    game.grids.forEach((g, s) => (game.scores[s] += g.reduce((a, b) => a + b, 0)));
    if (Math.max(...game.scores) >= TARGET) game.scores.fill(0);
    deal(game);
    game.toAct = next;
    return;
  }
  game.toAct = (seat + 1) % game.seats;
}

/** What `seat` may see of `game` (boardgame.io's playerView; Colyseus sends the same through
 * its StateView): every face-down card of another seat is DOWN, and the draw pile is gone. */
export function seatView(game, seat) {
  return {
    seats: game.seats,
    scores: game.scores,
    grids: game.grids.map((g, s) => (s === seat ? g : g.map((v, p) => (game.up[s][p] ? v : DOWN)))),
    up: game.up,
    discardTop: game.discard[game.discard.length - 1],
    drawn: game.drawn,
    toAct: game.toAct,
    version: game.version,
  };
}
