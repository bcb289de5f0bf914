// The boardgame.io peer's load generator: loadgen.js's closed loop over boardgame.io's own
// client (boardgame.io/client with the SocketIO multiplayer transport, WebSocket only), one
// client per seat, seats joined through boardgame.io's lobby API.
//
//   node bgio-loadgen.js --url http://127.0.0.1:8000 --rooms 10 --seconds 10

import { createRequire } from "node:module";
import { NumberSwap } from "./bgio-game.js";
import { DOWN } from "./game.js";
import { main } from "./loadgen.js";

const require = createRequire(import.meta.url);
const { Client } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

/** The player view as loadgen.js's view. */
function view(G) {
  return {
    version: G.version,
    toAct: G.toAct,
    drawn: G.drawn,
    up: G.up,
    grids: G.grids,
    hidden: G.grids.map((grid, s) => grid.map((v, p) => (G.up[s][p] ? DOWN : v))),
  };
}

function seat(url, matchID, playerID, credentials, seats) {
  let callback = null;
  let bytes = 0;
  let latest = null;
  const client = Client({
    game: NumberSwap,
    numPlayers: seats,
    multiplayer: SocketIO({ server: url, socketOpts: { transports: ["websocket"] } }),
    matchID,
    playerID: String(playerID),
    credentials,
    debug: false,
  });
  const deliver = () => {
    const counted = bytes;
    bytes = 0;
    callback(latest, counted);
  };
  client.subscribe((state) => {
    if (!state?.G || state.G.version === latest?.version) return;
    latest = view(state.G);
    if (callback !== null) deliver();
  });
  client.start();
  // What the seat's WebSocket receives: each engine.io message packet is one text frame, its
  // type character ("4") and the socket.io packet.
  client.transport.socket.io.engine.on("packet", (packet) => {
    if (packet.type === "message") bytes += 1 + Buffer.byteLength(packet.data);
  });
  return {
    seat: playerID,
    onView(cb) {
      callback = cb;
      if (latest !== null) deliver();
    },
    act(action) {
      client.moves.act(action);
    },
    close() {
      client.stop();
    },
  };
}

async function join(opts, _index, seed, onSeat) {
  const api = `${opts.url}/games/${NumberSwap.name}`;
  const { matchID } = await post(`${api}/create`, { numPlayers: opts.seats, setupData: { seed } });
  const seats = [];
  for (let s = 0; s < opts.seats; s++) {
    const { playerCredentials } = await post(`${api}/${matchID}/join`, {
      playerID: String(s),
      playerName: `P${s}`,
    });
    seats.push(seat(opts.url, matchID, s, playerCredentials, opts.seats));
  }
  seats.forEach(onSeat);
  return seats;
}

await main(join);
