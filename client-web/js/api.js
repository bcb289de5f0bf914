// The HTTP side of the server: the game list, creating a room, a room's public summary.

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

/** A random key for one room creation: a resend with it returns the same room. */
function creationKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Create a room; resolves to its public summary (with `code`). A `turnTimer` of null or
 * undefined is left out, so the game's default timer applies. A request whose answer is lost
 * (the network failed) is sent once more with the same key, which finds the room it made.
 */
export async function createRoom(game, options, turnTimer) {
  const body = { game, options, key: creationKey() };
  if (turnTimer !== undefined && turnTimer !== null) body.turn_timer = turnTimer;
  const request = () =>
    fetch("/api/rooms", {
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

/** A room's public summary, or null when there is no such room. */
export async function fetchRoom(code) {
  const response = await fetch(`/api/rooms/${encodeURIComponent(code)}`);
  if (response.status === 404) return null;
  return json(response);
}
