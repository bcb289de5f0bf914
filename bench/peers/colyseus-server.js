// The Colyseus peer (issue 32): Number Swap (game.js) in a Colyseus room, hidden information by
// Colyseus's own mechanism: `.view()` fields that only a client whose StateView holds the
// instance receives.
//
//   node colyseus-server.js --port 2567 [--redis redis://127.0.0.1:6379/0]
//
// Per accepted action the room applies it to its plain game state, (with --redis) writes the
// whole game as JSON to Redis with one SET and awaits the reply, copies what changed into the
// schema state and sends the patch at once (`broadcastPatch`; the automatic patch timer is off,
// so no action waits for a tick). GET /__healthcheck (Colyseus's own) answers 200 once
// listening.

import { parseArgs } from "node:util";
import { Room, Server } from "@colyseus/core";
import { StateView, schema, t } from "@colyseus/schema";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { DOWN, GRID, SEATS, apply, newGame } from "./game.js";

/** No card drawn. */
export const NONE = -100;

export const Player = schema(
  {
    sessionId: t.string(),
    score: t.int16(),
    // Every seat's: a face-up card's value, DOWN for a face-down one.
    grid: t.array("int8"),
    // Only its owner's (the owner's StateView holds this Player): the values of its
    // face-down cards, DOWN where the card is face up.
    hidden: t.array("int8").view(),
  },
  "Player",
);

export const State = schema(
  {
    players: t.array(Player),
    toAct: t.int8(),
    drawn: t.int8(),
    discardTop: t.int8(),
    version: t.uint32(),
  },
  "State",
);

const { values: args } = parseArgs({
  options: { port: { type: "string" }, redis: { type: "string" } },
});

let redis = null;
if (args.redis) {
  const { default: Redis } = await import("ioredis");
  redis = new Redis(args.redis);
  await redis.ping();
}

function setIfChanged(array, i, value) {
  if (array.length <= i) array.push(value);
  else if (array[i] !== value) array[i] = value;
}

class NumberSwapRoom extends Room {
  maxClients = SEATS;

  onCreate(options) {
    this.seats = Math.min(SEATS, Math.max(2, options.seats ?? SEATS));
    this.maxClients = this.seats;
    this.seed = options.seed ?? 1;
    this.game = null;
    // No patch timer: the patch goes out right after each action (broadcastPatch below).
    this.patchRate = null;
    this.state = new State();
    this.state.toAct = -1;
    this.state.drawn = NONE;
    this.onMessage("act", (client, action) => this.act(client, action));
  }

  onJoin(client) {
    const player = new Player();
    player.sessionId = client.sessionId;
    client.userData = { seat: this.state.players.length };
    this.state.players.push(player);
    client.view = new StateView();
    client.view.add(player);
    if (this.state.players.length === this.seats) {
      this.game = newGame(this.seats, this.seed);
      this.sync();
    }
    this.broadcastPatch();
  }

  async act(client, action) {
    const seat = client.userData.seat;
    if (this.game === null || !apply(this.game, seat, action)) {
      client.send("refused", this.game?.version ?? 0);
      return;
    }
    if (redis !== null) await redis.set(`peer:colyseus:${this.roomId}`, JSON.stringify(this.game));
    this.sync();
    this.broadcastPatch();
  }

  /** Copy what changed in the plain game into the schema state (Colyseus diffs the rest). */
  sync() {
    const game = this.game;
    const state = this.state;
    game.grids.forEach((grid, s) => {
      const player = state.players[s];
      if (player.score !== game.scores[s]) player.score = game.scores[s];
      const up = game.up[s];
      for (let p = 0; p < GRID; p++) {
        setIfChanged(player.grid, p, up[p] ? grid[p] : DOWN);
        setIfChanged(player.hidden, p, up[p] ? DOWN : grid[p]);
      }
    });
    state.toAct = game.toAct;
    state.drawn = game.drawn ?? NONE;
    state.discardTop = game.discard[game.discard.length - 1];
    state.version = game.version;
  }
}

const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define("numberswap", NumberSwapRoom);
await server.listen(Number(args.port), "127.0.0.1");
