// The tables this client can draw, by game id. Each module exports:
// table(view, ctx), prompt(view, ctx), waiting(view, ctx), facts(view, seat),
// describe(prevView, nextView) -> [{seat, text}], and scoreName.

import * as floor from "./floor.js";
import * as numberswap from "./numberswap.js";
import * as warp99 from "./warp99.js";

export const GAMES = { numberswap, warp99, floor };
