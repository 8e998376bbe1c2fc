/**
 * A seat whose person left during a match. The server gives it to a bot at once (DELETE of the
 * seat, app/store/rooms.py), so the table goes on; the table says so ("Bot plays for Seat 2 —
 * Alice left"), and shows on the felt itself how the seat can go to someone: a person in the room
 * takes it with one button, the host can share the invite link or keep the bot.
 *
 * Known from successive room messages: a seat that held a person and now holds a bot while the
 * match runs. The line stays until someone takes the seat, the host keeps the bot, or the match
 * ends.
 */
import { h } from "./dom.js";
import { addStrings, t } from "./i18n.js";

addStrings({
  en: {
    "left.bot": "Bot plays for {seat} — {name} left",
    "left.host": "To give the seat to someone, send them the invite link: they can take the seat from the bot here. Or keep the bot.",
    "left.member": "You can take this seat from the bot.",
    "left.take": "Take {seat}",
    "left.copy": "Copy invite link",
    "left.copied": "Link copied",
    "left.keep": "Keep the bot",
  },
  ja: {
    "left.bot": "{seat}はボットがプレイ中 — {name}さんが席を立ちました",
    "left.host": "この席を誰かに譲るには招待リンクを送ってください。その人がここでボットから席を引き継げます。ボットのままでも構いません。",
    "left.member": "この席をボットから引き継げます。",
    "left.take": "{seat}に座る",
    "left.copy": "招待リンクをコピー",
    "left.copied": "コピーしました",
    "left.keep": "ボットのままにする",
  },
});

/**
 * Compare two copies of the room: each seat that went from a person to a bot while a match runs
 * is added to `left` (seat -> {name, kept}); a seat a person holds again is dropped.
 * @param {Map<number, {name: string, kept: boolean}>} left
 */
export function noteLeftSeats(left, before, after, running) {
  if (!running) {
    left.clear();
    return;
  }
  for (const seat of after.seats || []) {
    const old = (before.seats || []).find((s) => s.n === seat.n);
    if (seat.kind === "bot" && old && old.kind === "person") left.set(seat.n, { name: old.name || "?", kept: false });
    else if (seat.kind !== "bot") left.delete(seat.n);
  }
}

/**
 * The table's lines for seats left to a bot (null: none). `actions.take(n)` seats this person;
 * `actions.invite()` is the room's invite link.
 */
export function leftSeatsLine(table, left, actions) {
  if (!left.size || !table.room) return null;
  const room = table.room;
  const me = room.me || {};
  const host = Boolean(me.is_host);
  const seated = (me.seats || []).length > 0;
  const rows = [];
  for (const [n, info] of left) {
    const seatWord = t("common.seat", { n: n + 1 });
    const text = t("left.bot", { seat: seatWord, name: info.name });
    const offer = !info.kept && (host || !seated);
    const copy = h("button", { type: "button", class: "small", "data-testid": `left-copy-${n}`, onclick: async () => {
      const url = actions && actions.invite ? actions.invite() : location.href;
      try {
        await navigator.clipboard.writeText(url);
      } catch { /* no clipboard permission: the link is in the room section too */ }
      copy.textContent = t("left.copied");
    } }, t("left.copy"));
    rows.push(h("div", { class: "left-seat", "data-testid": "left-seat", dataset: { seat: String(n) } },
      h("span", { class: "left-seat-text" }, text),
      offer ? h("span", { class: "help" }, t(host ? "left.host" : "left.member")) : null,
      offer ? h("span", { class: "left-seat-buttons" },
        !seated && actions && actions.take
          ? h("button", { type: "button", class: "small primary", "data-testid": `left-take-${n}`, onclick: () => actions.take(n) },
            t("left.take", { seat: seatWord }))
          : null,
        host ? copy : null,
        host ? h("button", { type: "button", class: "small", "data-testid": `left-keep-${n}`, onclick: () => {
          info.kept = true;
          table.render();
        } }, t("left.keep")) : null) : null));
  }
  return h("div", { class: "left-seats", role: "status", "data-testid": "left-seats" }, rows);
}
