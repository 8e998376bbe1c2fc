/**
 * Hints at the table: in a room whose host turned hints on (`room.hints`), the person to act sees a
 * "Hint" button next to the turn line. It asks the server (`POST /api/matches/{id}/hint`) for the
 * strong bot's choice for their own seat, which the server works out from that seat's own cards
 * and what it has seen (never another hand), and shows it in words; for a choice of several cards
 * (a Yaya Fugou play, a French Tarot discard) those cards are also selected in the hand, so one
 * confirmation makes it. The answer belongs to the state it was asked in: once the table moves on
 * it is gone. The server keeps each hint, and the match review marks the decision that followed.
 */
import { h } from "./dom.js";
import { post } from "./api.js";
import { pick, t } from "./i18n.js";
import { actionText } from "./review.js";

/** Per table: the hint asked for (`key`: match, version and seat), and how it stands. */
const asked = new WeakMap();

/** The seat this person may ask a hint for now, or null: hints on, their seat, their turn, a real choice. */
export function hintSeat(table) {
  const seat = table.activeSeat;
  if (!table.room || !table.room.hints || !table.state || seat === null || seat === undefined) return null;
  if (!table.heldSeats().includes(seat)) return null;
  return table.legalFor(seat).length > 1 ? seat : null;
}

const keyOf = (table, seat) => `${table.state.match_id}:${table.state.version}:${seat}`;

/** The hint in words: the cards (all of a set together), or the bid, pass, … */
function hintText(table, actions) {
  const cards = actions.flatMap((action) => action.cards || []);
  const whole = cards.length && actions.length > 1 ? { ...actions[0], cards } : actions[0];
  return actionText(whole, table.plugin.deck, table.gameId);
}

async function ask(table, seat) {
  const key = keyOf(table, seat);
  const entry = { key, status: "thinking", text: "" };
  asked.set(table, entry);
  table.render();
  try {
    const answer = await post(`/api/matches/${encodeURIComponent(table.state.match_id)}/hint`, { seat, version: table.state.version });
    entry.status = "done";
    entry.text = hintText(table, answer.actions || []);
    const cards = (answer.actions || []).flatMap((action) => action.cards || []);
    // Several cards at once: select them, as the player would before confirming.
    if (cards.length > 1 && asked.get(table) === entry && table.state && keyOf(table, seat) === key) table.selected = cards;
  } catch (error) {
    entry.status = "failed";
    entry.text = error && error.messages ? pick(error.messages) : String((error && error.message) || error);
  }
  if (asked.get(table) === entry) table.render();
}

/** The status line's "Hint" button and the hint itself, while this person may ask for one. */
export function hintButton(table) {
  const seat = hintSeat(table);
  if (seat === null) return null;
  const entry = asked.get(table);
  const current = entry && entry.key === keyOf(table, seat) ? entry : null;
  const line = current && current.status !== "thinking"
    ? t(current.status === "done" ? "hint.says" : "hint.failed", current.status === "done" ? { what: current.text } : { message: current.text })
    : current ? t("hint.thinking") : "";
  return h("span", { class: "table-hint" },
    h("button", {
      type: "button", class: "small hint-button", "data-testid": "hint-button", title: t("hint.title"),
      disabled: Boolean(current && current.status === "thinking") || table.pending,
      onclick: () => ask(table, seat),
    }, t("hint.button")),
    h("span", { class: ["hint-text", current && current.status === "failed" && "error"], role: "status", "data-testid": "hint-text" }, line));
}
