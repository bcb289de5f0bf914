// The tables this client can draw, by game id, each loaded only when a room of that game is
// entered (the home page needs none of them).
//
// Each game module exports (the frame, ../room.js, places what they return; see motion.js):
//   table(view, ctx) -> {
//     middle,   // Node: the shared piles / rows, centre of the table
//     tray,     // Node | null: your own hand or grid, in the fixed bottom tray (null: spectator)
//     moves,    // Node | null: the move buttons for the current choice; the frame always
//               //   reserves their space, so nothing moves under a finger when they appear
//     hint,     // string | null: one line saying what you can do and why ("The 7 is playable:
//               //   same colour as the pile"), shown in a reserved line above the moves
//   }
//   seat(view, seat, ctx) -> Node   compact game facts for one player in the top strip
//                                   (a mini grid, "5 cards", a score); the frame adds name,
//                                   presence, turn mark and timer
//   eventText(event, seat, ctx) -> string | null   one ticker / log line for one of the game's
//                                   public events (`seat`: who moved); null: not worth a line
//   animate(entries, {root, before, ctx})  optional: motion for the events just received
//                                   (`entries`: the state message's `events`, see
//                                   docs/protocol.md; `before`: motion.snapshot() taken before
//                                   the page was patched)
//   howTo(ctx) -> Node              the "How to play" sheet, in players' words, with pictures
//   summary(view, ctx) -> Node | null  extra for the results overlay (Number Swap's rounds)
//   prompt(view, ctx), waiting(view, ctx), facts(view, seat), scoreName   as before
//   optional(action) -> boolean     optional: whether a legal action is one the table does not
//                                   wait for (Number Swap's undo): alone, it does not make it
//                                   the seat's turn, and the banner adds the prompt for it (see
//                                   turnActions below); without it, every legal action counts
//
// ctx (from the frame): you, spectator, names(seat), ui/setUi (choices in progress), act(action),
// busy (nothing may be sent now: a move is on its way, or the page is not connected), pending
// (the move on its way, or null: its control gets the one "sending…" mark of ./shared.js),
// deadlineAt, away. ../table.js `gameCtx` makes it, read-only unless the caller says more.
// Every card element carries the class "card"; the generic button styles leave .card alone.
//
// An open view (view.open === true: a replay with nothing hidden, the rules' open_view; each
// docs/rules/<id>.md, "The open view") is drawn by the same table() and seat(), called as a
// spectator's:
//   const ctx = gameCtx({you: null, names: (seat) => "Ana"});   // ../table.js
//   table(view, ctx); seat(view, s, ctx) for every seat s
// (ui must be an object: Warp 99 keeps the open rule card's explanation there through setUi).
// Each module's decode picks up the filled-in keys and seat() draws that player's hidden cards:
// Number Swap its face-down cells with their values, as face-down cards still (class "peek":
// framed in the backs' green, striped, a folded corner); Warp 99 (under its row) and Floor (in
// place of the backs) its hand as mini cards in lines that overlap to fit the seat's width, so
// the strip never grows sideways on a phone. Warp 99's middle also shows the hand of the player
// whose row it shows. A view without `open` is drawn exactly as before.

const LOADERS = {
  numberswap: () => import("./numberswap.js"),
  warp99: () => import("./warp99.js"),
  floor: () => import("./floor.js"),
};

const loaded = {};
const loading = {};

// Whether this client has a table for the game at all (loaded yet or not).
export function knownGame(id) {
  return Object.hasOwn(LOADERS, id);
}

// The game's module if it has arrived, else null.
export function gameModule(id) {
  return loaded[id] || null;
}

// The legal actions of `view` that the table waits for: all but those the game's module calls
// optional (Number Swap's undo). The frame knows no game's actions: it asks this.
export function turnActions(module, view) {
  const legal = (view && view.legal) || [];
  return module && typeof module.optional === "function" ? legal.filter((a) => !module.optional(a)) : legal;
}

// Fetches the game's module (once); resolves to it, or null for a game this client lacks.
export function loadGame(id) {
  if (!knownGame(id)) return Promise.resolve(null);
  loading[id] ||= LOADERS[id]().then(
    (module) => {
      loaded[id] = module;
      return module;
    },
    (error) => {
      delete loading[id]; // the next snapshot tries again
      throw error;
    },
  );
  return loading[id];
}
