// What every game's table does the same way: read the view's legal actions by type, and mark
// the move this page sent that the server has not answered yet ("sending…").

import { h } from "../../dom.js";
import { sameAction } from "../common.js";

/**
 * The view's legal actions by type, under the names a table uses: `one` names the types of
 * which at most one is offered (the action, or undefined), `all` those of which any number are
 * (a list, maybe empty). `legalOf(view, {one: {draw: "draw"}, all: {takes: "take_discard"}})`
 * gives `{draw, takes}`.
 */
export function legalOf(view, { one = {}, all = {} }) {
  const legal = view.legal || [];
  const found = {};
  for (const [name, type] of Object.entries(all)) found[name] = legal.filter((a) => a.type === type);
  for (const [name, type] of Object.entries(one)) found[name] = legal.find((a) => a.type === type);
  return found;
}

// -- the move in flight ---------------------------------------------------------------------
//
// The frame's ctx says what is in flight (./index.js): `ctx.pending` is the move this page
// sent and the server has not answered yet (null: none), `ctx.busy` that nothing may be sent
// now. The control that made the move keeps its place while it waits and is marked one way in
// every game: the class SENDING on the control, and the words "sending…" on it (sendingMark,
// or withSending after a label); app.css draws both.

/** The class of a control whose move is in flight. */
export const SENDING = "is-sending";

/** Whether `action` is the move in flight. */
export function isSending(ctx, action) {
  return Boolean(action && ctx.pending && sameAction(ctx.pending, action));
}

/** The words "sending…" on a control whose move is in flight (`on`), else nothing. */
export function sendingMark(on = true) {
  return on ? h("span", { class: "sending" }, "sending…") : null;
}

/** A control's label followed, while its move is in flight (`on`), by the mark. */
export function withSending(label, on) {
  return on ? [label, " ", sendingMark()] : label;
}
