// The closed loop every peer's load generator runs (issue 32), over a peer's own client SDK.
//
// A peer module gives `join(options, room, seed)`: the seats of one new room, each
//   { seat, onView(callback(view, bytes)), act(action), close() }
// where `view` is what the SDK decoded for that seat, as { version, toAct, drawn, grids, up,
// hidden } (game.js's seatView shape; `hidden`, for the checks: each seat's face-down values as
// this seat received them, DOWN where it received none), and `bytes` is what the seat's
// WebSocket received since its last view.
//
// The loop: a seat whose newest view says it is to act picks one of its legal actions (seeded)
// and sends it. An action's latency is from its sending to the moment every seat of the room
// has a view at least that new (as bench/load.py measures Parlor); the acting seat's own
// latency is kept beside it. Each seat's views are counted, with their bytes.
//
// Two modes, both printing JSON lines on stdout:
// * load: `--rooms R --seconds S --warmup W`: prints {"event": "open"} when the measured window
//   opens, {"event": "close"} when it closes, then the results.
// * check: `--rooms 1 --seats N --actions A`: plays A actions in one room and prints every view
//   each seat received (the correctness test reads them).

import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { DOWN, legal, rng } from "./game.js";

export function options() {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      rooms: { type: "string", default: "10" },
      seats: { type: "string", default: "8" },
      seconds: { type: "string", default: "10" },
      warmup: { type: "string", default: "4" },
      actions: { type: "string" },
      seed: { type: "string", default: "1" },
      timeout: { type: "string", default: "30" },
    },
  });
  return {
    url: values.url,
    rooms: Number(values.rooms),
    seats: Number(values.seats),
    seconds: Number(values.seconds),
    warmup: Number(values.warmup),
    actions: values.actions === undefined ? null : Number(values.actions),
    seed: Number(values.seed),
    timeout: Number(values.timeout),
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const emit = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : null;
}

/** The first time (ms) a seat had a view at least `version` new, or undefined. */
function firstSeen(seen, version) {
  let lo = 0;
  let hi = seen.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seen[mid][0] < version) lo = mid + 1;
    else hi = mid;
  }
  return lo < seen.length ? seen[lo][1] : undefined;
}

function drive(room, seat, opts, state) {
  const random = rng(opts.seed * 7919 + room.index * 100 + seat.seat);
  const me = { seat, seen: [], bytes: [], views: [], last: -1, actedAt: -1, view: null };
  me.act = (now) => {
    const view = me.view;
    if (!room.ready || state.stopped || view.toAct !== seat.seat) return;
    if (me.actedAt === view.version) return;
    if (opts.actions !== null && view.version > opts.actions) return;
    const moves = legal(view, seat.seat);
    if (!moves.length) return;
    me.actedAt = view.version;
    // One seat acts at a time, so this action makes the room's next version.
    room.sent.set(view.version + 1, { at: now, seat: seat.seat });
    seat.act(moves[Math.floor(random() * moves.length)]);
  };
  seat.onView((view, bytes) => {
    const now = performance.now();
    if (view.version <= me.last) return;
    me.last = view.version;
    me.view = view;
    me.seen.push([view.version, now]);
    if (state.measuring) me.bytes.push(bytes);
    if (opts.actions !== null) {
      me.views.push(JSON.parse(JSON.stringify(view)));
      state.changed?.();
    }
    if (!room.ready) {
      // Nobody acts before every seat of the room has its first view (boardgame.io's game is
      // dealt when the match is created, before its seats connect).
      room.ready = room.players.length === opts.seats && room.players.every((p) => p.view);
      if (room.ready) room.players.forEach((p) => p.act(now));
      return;
    }
    me.act(now);
  });
  return me;
}

export async function main(join) {
  const opts = options();
  const state = { measuring: false, stopped: false };
  const rooms = [];
  for (let r = 0; r < opts.rooms; r++) {
    const room = { index: r, sent: new Map(), seats: [], players: [], ready: false };
    rooms.push(room);
    // Each seat is driven from its first view on: the room's game starts when its last seat
    // has joined, so rooms start one after the other.
    room.seats = await join(opts, r, opts.seed * 1000 + r, (seat) =>
      room.players.push(drive(room, seat, opts, state)),
    );
    room.players.sort((a, b) => a.seat.seat - b.seat.seat);
  }
  if (opts.actions !== null) {
    await check(rooms, opts, state);
    return;
  }
  await sleep(opts.warmup * 1000);
  emit({ event: "open" });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  state.measuring = true;
  await sleep(opts.seconds * 1000);
  state.measuring = false;
  const ended = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  emit({ event: "close" });
  state.stopped = true;
  const all = [];
  const acting = [];
  let actions = 0;
  for (const room of rooms) {
    for (const [version, { at, seat }] of room.sent) {
      const own = firstSeen(room.players[seat].seen, version);
      if (own !== undefined && own >= started && own < ended) actions++;
      if (at < started || at >= ended) continue;
      if (own !== undefined) acting.push(own - at);
      const times = room.players.map((p) => firstSeen(p.seen, version));
      if (times.every((t) => t !== undefined)) all.push(Math.max(...times) - at);
    }
  }
  all.sort((a, b) => a - b);
  acting.sort((a, b) => a - b);
  const sizes = rooms.flatMap((room) => room.players.flatMap((p) => p.bytes));
  const elapsed = (ended - started) / 1000;
  emit({
    rooms: opts.rooms,
    clients: opts.rooms * opts.seats,
    seconds: Math.round(elapsed * 10) / 10,
    actions,
    actions_per_s: Math.round(actions / elapsed),
    p50_ms: quantile(all, 0.5),
    p99_ms: quantile(all, 0.99),
    acting_p50_ms: quantile(acting, 0.5),
    acting_p99_ms: quantile(acting, 0.99),
    views: sizes.length,
    mean_view_bytes: sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : null,
    loadgen_cpu_busy: (cpu.user + cpu.system) / 1e6 / elapsed,
  });
  for (const room of rooms) room.seats.forEach((s) => s.close());
  process.exit(0);
}

async function check(rooms, opts, state) {
  const done = () =>
    rooms.every((room) => room.players.every((p) => p.last >= opts.actions + 1));
  // Waits for its event (every seat has the last view), up to the timeout; nothing is timed.
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, opts.timeout * 1000);
    state.changed = () => done() && (clearTimeout(timer), resolve());
    state.changed();
  });
  emit({
    complete: done(),
    down: DOWN,
    rooms: rooms.map((room) =>
      room.players.map((p) => ({ seat: p.seat.seat, views: p.views })),
    ),
  });
  for (const room of rooms) room.seats.forEach((s) => s.close());
  process.exit(0);
}
