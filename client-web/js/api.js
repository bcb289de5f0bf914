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

/** Create a room; resolves to its public summary (with `code`). A `turnTimer` of null or
 * undefined is left out, so the game's default timer applies. */
export async function createRoom(game, options, turnTimer) {
  const body = { game, options };
  if (turnTimer !== null && turnTimer !== undefined) body.turn_timer = turnTimer;
  const response = await fetch("/api/rooms", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return json(response);
}

/** A room's public summary, or null when there is no such room. */
export async function fetchRoom(code) {
  const response = await fetch(`/api/rooms/${encodeURIComponent(code)}`);
  if (response.status === 404) return null;
  return json(response);
}
