// The home screen: your name, create a room (game, options), or join one by its code.

import { h } from "../dom.js";
import { optionsFields, timerField } from "./common.js";

function nameField(model, intents) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: "player-name" }, "Your name"),
    h("input", {
      id: "player-name",
      type: "text",
      autocomplete: "nickname",
      maxlength: 24,
      required: true,
      value: model.name,
      placeholder: "What friends call you",
      oninput: (e) => intents.setName(e.target.value),
    }),
  );
}

function gamePicker(model, intents) {
  const home = model.home;
  if (model.gamesError) return h("p", { class: "error", role: "alert" }, model.gamesError);
  if (!model.games) return h("p", { class: "muted" }, "Loading the games…");
  return h(
    "fieldset",
    { class: "games" },
    h("legend", null, "Game"),
    model.games.map((game) =>
      h(
        "label",
        { class: ["game-choice", home.gameId === game.id && "chosen"], key: game.id },
        h("input", {
          type: "radio",
          name: "game",
          value: game.id,
          checked: home.gameId === game.id,
          onchange: () => intents.pickGame(game.id),
        }),
        h(
          "span",
          { class: "game-text" },
          h("strong", null, game.name),
          h("span", { class: "seats" }, ` · ${game.min_seats}–${game.max_seats} players`),
          h("span", { class: "summary" }, game.summary),
        ),
      ),
    ),
  );
}

export function homeView(model, intents) {
  const home = model.home;
  const game = (model.games || []).find((g) => g.id === home.gameId);
  const create = h(
    "form",
    {
      class: "panel",
      "aria-labelledby": "create-title",
      onsubmit: (e) => {
        e.preventDefault();
        intents.createRoom();
      },
    },
    h("h2", { id: "create-title" }, "Start a room"),
    gamePicker(model, intents),
    game
      ? h(
          "details",
          { class: "options", key: `options-${game.id}` },
          h("summary", null, `${game.name} options`),
          optionsFields(game.options, home.options, intents.setHomeOption),
          timerField(home.turnTimer, intents.setHomeTimer, { unset: "the game's default" }),
        )
      : null,
    h(
      "button",
      { type: "submit", class: "primary", disabled: home.busy || !game },
      home.busy ? "Creating…" : "Create room",
    ),
  );
  const join = h(
    "form",
    {
      class: "panel",
      "aria-labelledby": "join-title",
      onsubmit: (e) => {
        e.preventDefault();
        intents.joinByCode();
      },
    },
    h("h2", { id: "join-title" }, "Join a room"),
    h("label", { for: "room-code", class: "join-label" }, "Room code"),
    // The code and Join on one line: on a phone the form is short, so "Create room" below it
    // is in sight too.
    h(
      "div",
      { class: "join-row" },
      h("input", {
        id: "room-code",
        class: "code-input",
        type: "text",
        autocomplete: "off",
        autocapitalize: "characters",
        spellcheck: "false",
        maxlength: 7,
        placeholder: "ABCDE",
        value: home.code,
        oninput: (e) => intents.setHomeCode(e.target.value),
      }),
      h("button", { type: "submit", class: "primary" }, "Join"),
    ),
  );
  // The code box and a held seat first: on a phone they are what fits above the fold.
  return h(
    "div",
    { class: "home" },
    h(
      "section",
      { class: "intro" },
      h("h1", { tabindex: -1 }, "Parlor"),
      h("p", null, "Card games with friends: open a room, share the code, play."),
    ),
    heldSeats(model, intents),
    nameField(model, intents),
    home.error ? h("p", { class: "error", role: "alert" }, home.error) : null,
    h("div", { class: "home-forms" }, join, create),
  );
}

/** "Return to your game" for each room this browser still holds a seat in. */
function heldSeats(model, intents) {
  const seats = model.home.seats || [];
  if (!seats.length) return null;
  return h(
    "section",
    { class: "panel held-seats", "aria-labelledby": "held-title", "data-held-seats": "" },
    h("h2", { id: "held-title" }, seats.length === 1 ? "Your game" : "Your games"),
    h(
      "ul",
      { class: "held-list" },
      seats.map((seat) => {
        const game = (model.games || []).find((g) => g.id === seat.game);
        const name = game ? game.name : seat.game;
        const when = seat.phase === "lobby" ? "in the lobby" : seat.phase === "finished" ? "finished" : "playing";
        return h(
          "li",
          { key: seat.code },
          h("span", null, h("strong", null, name), ` · room ${seat.code} · ${when}`),
          h(
            "button",
            { type: "button", class: "primary", onclick: () => intents.returnTo(seat.code), "aria-label": `Return to your game: ${name}, room ${seat.code}` },
            "Return to your game",
          ),
        );
      }),
    ),
  );
}
