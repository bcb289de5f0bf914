// The HTTP side of the server: the game list, creating a room, a room's public summary, your
// games, and claiming a seat moved from another device.

async function json(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body && body.message ? body.message : `The server answered ${response.status}`;
    const error = new Error(message);
    error.code = body && body.code;
    error.status = response.status;
    throw error;
  }
  return body;
}

/** Every game: id, name, summary, min_seats, max_seats, options (JSON schema), defaults. */
export async function fetchGames() {
  return json(await fetch("/api/games"));
}

/** A random key for one room creation (or one claim): a resend with it gets the same answer. */
export function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** POST `body` as JSON to `path`; a request whose answer is lost (the network failed) is sent
 * once more, the same: every body sent this way carries a key that makes a resend safe. */
async function post(path, body) {
  const request = () =>
    fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  let response;
  try {
    response = await request();
  } catch {
    response = await request();
  }
  return json(response);
}

/**
 * Create a room; resolves to its public summary (with `code`). A `turnTimer` of null or
 * undefined is left out, so the game's default timer applies (none in a turn-based room).
 * `mode`: "live" or "turns" (played by text). A resend carries the same key, which finds the
 * room the first request made.
 */
export async function createRoom(game, options, turnTimer, mode = "live") {
  const body = { game, options, mode, key: randomKey() };
  if (turnTimer !== undefined && turnTimer !== null) body.turn_timer = turnTimer;
  return post("/api/rooms", body);
}

/** Your games: `seats` [{code, token}] (at most 100) → {games, forget, now} (docs/protocol.md). */
export async function fetchYourGames(seats) {
  const response = await fetch("/api/mine", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ seats }),
  });
  return json(response);
}

/** Exchange a device move's one-time code for the seat in room `room`: {code, token, id, seat}.
 * A refusal throws with `status` (403 used, expired or mistyped; 404 no room; 429 too many). */
export async function claimSeat(room, code) {
  return post(`/api/rooms/${encodeURIComponent(room)}/claim`, { code, key: randomKey() });
}

/** A room's public summary, or null when there is no such room. */
export async function fetchRoom(code) {
  const response = await fetch(`/api/rooms/${encodeURIComponent(code)}`);
  if (response.status === 404) return null;
  return json(response);
}
