/**
 * Taking back one's own last action. The server's state message names
 * the seat that may take back now (`take_back`: its last action is still the match's last, and
 * the engine found that it showed nobody a hidden card); the table then offers a "Take back"
 * button and Ctrl+Z / ⌘Z to the person holding that seat. The server checks everything again.
 */
import { h } from "./dom.js";
import { addStrings, t } from "./i18n.js";

addStrings({
  en: { "takeback.notice": "{name} took back {what}" },
  ja: { "takeback.notice": "{name}さんが待った: {what}" },
});

/** The seat of this person whose last action may be taken back now, or null. */
export function takeBackSeat(table) {
  const seat = table.state ? table.state.take_back : null;
  return seat !== undefined && seat !== null && table.heldSeats().includes(seat) ? seat : null;
}

/** Ask the server to take back; false when there is nothing to take back or it was not sent. */
export function sendTakeBack(table) {
  const seat = takeBackSeat(table);
  if (seat === null || table.pending) return false;
  const { match_id: matchId, version } = table.state;
  const sent = table.sendRaw({ type: "take_back", match_id: matchId, seat, version });
  if (sent) {
    table.pending = true;
    table.render();
  }
  return sent;
}

/** The status line's "Take back" button, while this person may take back. */
export function takeBackButton(table) {
  if (takeBackSeat(table) === null) return null;
  return h("button", {
    type: "button", class: "small take-back", "data-testid": "take-back", title: t("takeback.keys"),
    onclick: () => sendTakeBack(table),
  }, t("takeback.button"));
}

/** Ctrl+Z / ⌘Z takes back, except while typing (the chat keeps its own undo). */
export function listenForUndoKey(table, signal) {
  window.addEventListener("keydown", (event) => {
    if (event.key.toLowerCase() !== "z" || !(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    if (sendTakeBack(table)) event.preventDefault();
  }, { signal });
}

/** The cards of a taken-back action (shown face up in the play log), if it had any. */
export function takenBackCards(action) {
  if (!action) return [];
  return action.cards || (action.card ? [action.card] : []);
}

/** What was taken back, in words: "7♠" for cards (via `cardsText`), else the bid or the kind. */
export function takenBackText(action, cardsText) {
  if (!action) return "";
  const cards = takenBackCards(action);
  if (cards.length) return cardsText(cards);
  if (action.type === "pass") return t("log.pass");
  return String(action.bid ?? action.contract ?? action.pile ?? action.crest ?? action.type);
}

/** The play log's line for a `take_back` event: "‹name› took back" and the cards. */
export function takeBackLogEntry(event) {
  const cards = takenBackCards(event.action);
  const text = cards.length ? t("log.take_back") : t("log.take_back_what", { what: takenBackText(event.action, () => "") });
  return { kind: "note", seat: event.seat, text, cards };
}

/** Replay steps: mark each take-back with the action it undid (`step.undone`). */
export function markUndone(steps) {
  const played = [];
  for (const step of steps) {
    if (step.action && step.action.type === "take_back") step.undone = (played.pop() || {}).action || null;
    else played.push(step);
  }
  return steps;
}

/** The match page's note of how often each person took back (nothing when nobody did). */
export function takeBackCounts(seats, seatName) {
  const counted = (seats || []).filter((seat) => seat.take_backs > 0);
  if (!counted.length) return null;
  return h("p", { class: "muted", "data-testid": "take-back-counts" },
    t("match.take_backs"), " ",
    counted.map((seat) => t("match.take_backs.seat", { name: seatName(seat.n), n: seat.take_backs })).join(" · "));
}

/**
 * The play log after a take-back: the undone action's entry goes (with the trick it closed, if
 * it was a trick's last card), so the log reads as the table now stands, and the take-back's own
 * line follows. `entries` is changed in place.
 */
export function undoInLog(entries, event) {
  let index = entries.length - 1;
  while (index >= 0 && entries[index].kind === "trick") index -= 1;
  const undone = entries[index];
  if (undone && !undone.takeBack && undone.seat === event.seat && undone.kind !== "trick") entries.splice(index);
  entries.push({ ...takeBackLogEntry(event), takeBack: true });
}

/** "Ada took back 7♠" for everyone but the person who did it (`mine`: this person's seats). */
export function takeBackNotices(events, mine, seatName, cardsText) {
  return (events || [])
    .filter((event) => event.type === "take_back" && !mine.includes(event.seat))
    .map((event) => ({
      mine: false,
      takeBack: true,
      text: t("takeback.notice", { name: seatName(event.seat), what: takenBackText(event.action, cardsText) }),
    }));
}

/** Where each card on the felt is, before a redraw (for `flyBack`). */
export function captureFelt(root) {
  const cards = new Map();
  for (const el of root.querySelectorAll(".felt .trick-card[data-card], .felt .done-trick-card[data-card]")) {
    cards.set(el.dataset.card, { rect: el.getBoundingClientRect(), copy: el.cloneNode(true) });
  }
  return cards;
}

/**
 * A taken-back card goes back where it came from: drawn where it lay on the felt, it moves to
 * the taker's hand (their own screen) or seat box (everyone else's) and shrinks away there.
 * `layer`: the motion layer above the table (static/js/motion.js).
 */
export function flyBack(root, before, events, layer) {
  for (const event of events || []) {
    if (event.type !== "take_back") continue;
    for (const card of takenBackCards(event.action)) {
      const was = before.get(card);
      if (!was) continue;
      const target = root.querySelector(`[data-testid=hand][data-seat='${event.seat}'] .card[data-card='${card}']`)
        || root.querySelector(`.felt .seat[data-seat='${event.seat}']`);
      if (!target) continue;
      const to = target.getBoundingClientRect();
      const ghost = was.copy;
      for (const el of [ghost, ...ghost.querySelectorAll("*")]) {
        for (const name of ["data-card", "data-seat", "data-order", "data-testid", "title", "aria-label"]) el.removeAttribute(name);
      }
      ghost.className = "returning";
      ghost.dataset.returning = card;
      Object.assign(ghost.style, {
        position: "fixed", left: `${was.rect.left}px`, top: `${was.rect.top}px`,
        width: `${was.rect.width}px`, height: `${was.rect.height}px`, margin: "0",
      });
      layer.append(ghost);
      const dx = to.left + to.width / 2 - (was.rect.left + was.rect.width / 2);
      const dy = to.top + to.height / 2 - (was.rect.top + was.rect.height / 2);
      const animation = ghost.animate(
        [{ transform: "none" }, { transform: `translate(${dx}px, ${dy}px) scale(0.6)` }],
        { duration: RETURN_MS, easing: "ease-in-out", fill: "forwards" },
      );
      animation.onfinish = () => ghost.remove();
      animation.oncancel = () => ghost.remove();
    }
  }
}

/** How long a taken-back card takes to go back, in ms (a little slower than a play: it is news). */
const RETURN_MS = 650;
