// The boardgame.io peer's server (issue 32): boardgame.io's own Server (Koa, socket.io, its
// in-memory storage, its lobby API on the same port), serving bgio-game.js on 127.0.0.1.
//
//   node bgio-server.js --port 8000
//
// GET /games answers 200 (the lobby's list of games) once listening.

import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { NumberSwap } from "./bgio-game.js";

// boardgame.io's packages are CommonJS (a directory per entry point).
const { Server } = createRequire(import.meta.url)("boardgame.io/server");

const { values: args } = parseArgs({ options: { port: { type: "string" } } });

// Clients of the bench are Node processes (no browser Origin), so no origin is allowed.
const server = Server({ games: [NumberSwap], origins: [] });
// Koa's listen() binds every interface; this bench's servers listen on the loopback only.
const listen = server.app.listen.bind(server.app);
server.app.listen = (port, callback) => listen(port, "127.0.0.1", callback);
await server.run(Number(args.port));
