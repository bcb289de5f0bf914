// The home screen: your games, your name, create a room (game, live or by text, options), join
// one by its code, or take a seat moved from another device.

import { h } from "../dom.js";
import { ago, modeFreeSchema, textTimerChoice } from "./bytext.js";
import { listNames, optionsFields, timerField } from "./common.js";

const MODES = [
  ["live", "Live", "everyone at once"],
  ["turns", "By text", "take turns over days"],
];

/** Live or by text: fixed for the room's life. */
function modePicker(model, intents) {
  const mode = model.home.mode;
  return h(
    "fieldset",
    { class: "modes" },
    h("legend", null, "How you play"),
    MODES.map(([value, name, how]) =>
      h(
        "label",
        { class: ["mode-choice", mode === value && "chosen"], key: `mode-${value}` },
        h("input", { type: "radio", name: "mode", value, checked: mode === value, onchange: () => intents.setHomeMode(value) }),
        h("span", null, h("strong", null, name), h("span", { class: "mode-how" }, ` (${how})`)),
      ),
    ),
  );
}

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
    model.games ? modePicker(model, intents) : null,
    game
      ? h(
          "details",
          { class: "options", key: `options-${game.id}` },
          h("summary", null, `${game.name} options`),
          optionsFields(modeFreeSchema(game), home.options, intents.setHomeOption),
          home.mode === "turns"
            ? textTimerChoice(home.textTimer, intents.setHomeTextTimer, { id: "opt-text-timer" })
            : timerField(home.turnTimer, intents.setHomeTimer, { unset: "the game's default" }),
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
    claimForm(model, intents),
  );
}

/** "Have a code from another device?": the room code and the one-time code a seated player's
 * other device showed (the link it showed does the same by itself). */
function claimForm(model, intents) {
  const claim = model.home.claim;
  return h(
    "details",
    // Open or closed as the person left it: the page is redrawn when your games arrive.
    { class: "panel claim", key: "claim", open: claim.open || claim.error ? true : null, ontoggle: (e) => intents.setClaim("open", e.target.open) },
    h("summary", null, "Have a code from another device?"),
    h(
      "form",
      {
        onsubmit: (e) => {
          e.preventDefault();
          intents.claimByCode();
        },
      },
      h("p", { class: "muted" }, "Move your seat here: on the device you played on, choose “Play on another device” in the room, then type the codes it shows."),
      h(
        "div",
        { class: "claim-row" },
        h(
          "div",
          { class: "field" },
          h("label", { for: "claim-room" }, "Room"),
          h("input", { id: "claim-room", class: "code-input", type: "text", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", maxlength: 7, placeholder: "ABCDE", value: claim.room, oninput: (e) => intents.setClaim("room", e.target.value) }),
        ),
        h(
          "div",
          { class: "field" },
          h("label", { for: "claim-code" }, "Code from the other device"),
          h("input", { id: "claim-code", class: "code-input", type: "text", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", maxlength: 20, placeholder: "ABCD-EFGH-JKLM", value: claim.code, oninput: (e) => intents.setClaim("code", e.target.value) }),
        ),
      ),
      claim.error ? h("p", { class: "error", role: "alert" }, claim.error) : null,
      h("button", { type: "submit", class: "primary" }, "Move my seat here"),
    ),
  );
}

/** Whose turn a game of yours is, in words: "Your turn", "Ben's turn", "In the lobby"… */
function turnWords(game) {
  if (game.phase === "lobby") return "In the lobby";
  if (game.phase === "finished") return "Finished";
  if (game.your_turn) return "Your turn";
  const others = game.to_act;
  if (!others.length) return "Playing";
  return others.length === 1 ? `${others[0]}'s turn` : `${listNames(others)} to play`;
}

/** Your games: every room this browser holds a seat in (POST /api/mine), your turn first, each
 * with the other players, whose turn it is and when the last move was. */
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
        const name = seat.name || (game ? game.name : seat.game);
        const turn = turnWords(seat);
        const others = seat.others.length ? `with ${listNames(seat.others)}` : "nobody else yet";
        return h(
          "li",
          { key: seat.code, class: seat.your_turn && "yours", "data-room": seat.code },
          h(
            "span",
            { class: "held-text" },
            h("strong", null, name),
            seat.mode === "turns" ? h("span", { class: "badge" }, "by text") : null,
            h("span", { class: ["badge", seat.your_turn && "turn", "held-turn"], "data-turn": seat.your_turn ? "mine" : "" }, turn),
            h("span", { class: "held-more" }, `${others} · room ${seat.code}`, seat.phase === "lobby" ? "" : ` · last move ${ago(seat.ago)}`),
          ),
          h(
            "button",
            { type: "button", class: seat.your_turn ? "primary" : "", onclick: () => intents.returnTo(seat.code), "aria-label": `Return to your game: ${name}, room ${seat.code}${seat.your_turn ? ", your turn" : ""}` },
            "Return to your game",
          ),
        );
      }),
    ),
  );
}
