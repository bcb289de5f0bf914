// The Colyseus peer's load generator: loadgen.js's closed loop over Colyseus's own client SDK
// (@colyseus/sdk), one Client and room connection per seat.
//
//   node colyseus-loadgen.js --url ws://127.0.0.1:2567 --rooms 10 --seconds 10

import { Client } from "@colyseus/sdk";
import { DOWN } from "./game.js";
import { main } from "./loadgen.js";

const NONE = -100;

/** The decoded state as loadgen.js's view (this seat's own grid with its face-down values). */
function view(state) {
  const players = [...state.players];
  const up = players.map((p) => [...p.grid].map((v) => v !== DOWN));
  const hidden = players.map((p) => (p.hidden?.length ? [...p.hidden] : Array(12).fill(DOWN)));
  return {
    version: state.version,
    toAct: state.toAct,
    drawn: state.drawn === NONE ? null : state.drawn,
    up,
    hidden,
    grids: players.map((p, s) => [...p.grid].map((v, i) => (up[s][i] ? v : hidden[s][i]))),
  };
}

function wrap(room, seatNumber) {
  let callback = null;
  let bytes = 0;
  let latest = null;
  const seat = {
    seat: seatNumber,
    onView(cb) {
      callback = cb;
      if (latest !== null) deliver();
    },
    act(action) {
      room.send("act", action);
    },
    close() {
      room.leave().catch(() => {});
    },
  };
  function deliver() {
    const counted = bytes;
    bytes = 0;
    callback(latest, counted);
  }
  room.connection.transport.ws.addEventListener("message", (event) => {
    bytes += event.data.byteLength ?? Buffer.byteLength(event.data);
  });
  room.onStateChange((state) => {
    if (!state.version) return; // seats still joining: no game yet
    latest = view(state);
    if (callback !== null) deliver();
  });
  return seat;
}

async function join(opts, _index, seed, onSeat) {
  const clients = Array.from({ length: opts.seats }, () => new Client(opts.url));
  // The room numbers seats in join order (one join after another here); each seat listens from
  // its join on, since the last join deals the game.
  const first = await clients[0].create("numberswap", { seats: opts.seats, seed });
  const seats = [wrap(first, 0)];
  for (let s = 1; s < opts.seats; s++) seats.push(wrap(await clients[s].joinById(first.roomId), s));
  seats.forEach(onSeat);
  return seats;
}

await main(join);
