// The boardgame.io peer's game (issue 32): Number Swap (game.js) as a boardgame.io game, hidden
// information by boardgame.io's own mechanism, `playerView` (run for every seat on every
// update), turns by its turn order (the seat to act is G.toAct; a draw keeps the turn).

import { apply, newGame, seatView } from "./game.js";

// boardgame.io's INVALID_MOVE ("INVALID_MOVE" from boardgame.io/core), written out so the
// game module needs no import from it.
const INVALID_MOVE = "INVALID_MOVE";

export const NumberSwap = {
  name: "numberswap",
  setup: ({ ctx }, setupData) => newGame(ctx.numPlayers, setupData?.seed ?? 1),
  moves: {
    act: {
      move: ({ G, playerID }, action) => (apply(G, Number(playerID), action) ? undefined : INVALID_MOVE),
      // Played on the server only (the client does not know the cards it would need): no
      // optimistic update runs in the client, which sees the result when the server sends it.
      client: false,
    },
  },
  turn: {
    order: {
      first: ({ G }) => G.toAct,
      next: ({ G }) => G.toAct,
    },
    endIf: ({ G, ctx }) => G.toAct !== Number(ctx.currentPlayer),
  },
  // A spectator (playerID null) sees no face-down card at all.
  playerView: ({ G, playerID }) => seatView(G, playerID === null ? -1 : Number(playerID)),
};
