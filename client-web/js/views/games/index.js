// The tables this client can draw, by game id, each loaded only when a room of that game is
// entered (the home page needs none of them). Each module exports:
// table(view, ctx), prompt(view, ctx), waiting(view, ctx), facts(view, seat),
// describe(prevView, nextView) -> [{seat, text}], and scoreName.

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
