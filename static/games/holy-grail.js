/**
 * Get the Holy Grail! (holy-grail): the table plugin.
 *
 * Captured hearts are public in this game (taken hearts lie face up), so every seat shows its
 * pile and its running points. The panel shows the dealing round, the stock, and whether hearts
 * are broken; the hand result explains the score: heart points, the base for this player count,
 * the ×2 (∞ with 0), the sign flip (−1 with 0), or a shot moon.
 */
import { h } from "../js/dom.js";
import { cardEl, cardRow } from "../js/cards.js";
import { formatScore } from "../js/table.js";

/** Points of one heart: A 1, 2–15 face value, J C Q K 20, −1 and ∞ 20 (26 at 7 and 9 players), 0 none. */
export function heartPoints(card, players) {
  const rank = card.slice(1);
  if (rank === "0") return 0;
  if (rank === "-1" || rank === "I") return players === 7 || players === 9 ? 26 : 20;
  if (["J", "C", "Q", "K"].includes(rank)) return 20;
  return Number(rank);
}

function pilePoints(pile, players) {
  return pile.reduce((sum, card) => sum + heartPoints(card, players), 0);
}

const strings = {
  en: {
    "holy-grail.refuse.hearts": "Hearts are not broken yet: you may not lead a Holy Grail card while you hold another.",
    "holy-grail.round": "Dealing round {n} of {total}",
    "holy-grail.stock": "Stock: {n} cards",
    "holy-grail.broken": "Hearts broken",
    "holy-grail.unbroken": "Hearts not broken yet",
    "holy-grail.captured": "Captured hearts (public)",
    "holy-grail.none": "none",
    "holy-grail.points": "{n} pts",
    "holy-grail.tricks": "tricks {n}",
    "holy-grail.badge": "♥{count} · {points} pts",
    "holy-grail.col.player": "Player",
    "holy-grail.col.hearts": "Hearts taken",
    "holy-grail.col.points": "Points",
    "holy-grail.col.base": "Base",
    "holy-grail.col.diff": "Points − base",
    "holy-grail.col.score": "Hand score",
    "holy-grail.doubled": "×2: {name} took the heart ∞ together with the heart 0, so every score is doubled.",
    "holy-grail.flipped": "Sign flip: {name} took the heart −1 together with the heart 0, so every score changes sign.",
    "holy-grail.both": "{name} took the heart 0, −1 and ∞: every score changes sign and is doubled.",
    "holy-grail.moon": "Shooting the moon: {name} took every heart and scores 200 × {others} = {score}; everyone else −200 (no ×2 or flip).",
    "holy-grail.plain": "Each score is the points of the hearts taken minus the base of {base}.",
  },
  ja: {
    "holy-grail.refuse.hearts": "まだハートブレイクしていません。他のカードがある間は聖杯のカードをリードできません。",
    "holy-grail.round": "配り {n} 回目 / 全 {total} 回",
    "holy-grail.stock": "山札: {n}枚",
    "holy-grail.broken": "聖杯ブレイク済み",
    "holy-grail.unbroken": "聖杯はまだブレイクしていません",
    "holy-grail.captured": "獲得した聖杯（公開）",
    "holy-grail.none": "なし",
    "holy-grail.points": "{n}点",
    "holy-grail.tricks": "{n}トリック",
    "holy-grail.badge": "♥{count}枚 · {points}点",
    "holy-grail.col.player": "プレイヤー",
    "holy-grail.col.hearts": "獲得した聖杯",
    "holy-grail.col.points": "点数",
    "holy-grail.col.base": "基準点",
    "holy-grail.col.diff": "点数 − 基準点",
    "holy-grail.col.score": "このハンドの得点",
    "holy-grail.doubled": "2倍: {name} が聖杯の∞と0を両方取ったので、全員の得点が2倍になります。",
    "holy-grail.flipped": "符号反転: {name} が聖杯の−1と0を両方取ったので、全員の得点の符号が逆になります。",
    "holy-grail.both": "{name} が聖杯の0・−1・∞をすべて取ったので、全員の得点は符号が逆になり、さらに2倍になります。",
    "holy-grail.moon": "独占: {name} が聖杯をすべて取り、200 × {others} = {score} 点。他の全員は −200 点（2倍・符号反転なし）。",
    "holy-grail.plain": "得点は、取った聖杯の点数から基準点 {base} を引いたものです。",
  },
};

export default {
  deck: "extarot",
  direction: "cw",
  strings,

  /** The engine already orders each hand (majors, then swords, trees, coins, grails; weakest first). */
  sortHand: (cards) => cards,

  renderPanel(container, ctx) {
    const view = ctx.view;
    if (view.phase !== "play") return;
    const players = view.players;
    container.append(
      h("div", { class: "hg-info" },
        h("span", { class: "chip" }, ctx.t("holy-grail.round", { n: view.deal_round, total: view.deal_rounds })),
        view.stock_count ? h("span", { class: "chip" }, ctx.t("holy-grail.stock", { n: view.stock_count })) : null,
        h("span", { class: ["chip", view.hearts_broken ? "chip-hot" : "chip-cool"], "data-testid": "hearts-broken", dataset: { broken: view.hearts_broken ? "1" : "0" } },
          ctx.t(view.hearts_broken ? "holy-grail.broken" : "holy-grail.unbroken"))),
    );
    const piles = view.captured_hearts || [];
    if (piles.some((pile) => pile.length)) {
      container.append(h("details", { class: "hg-captured", open: true },
        h("summary", null, ctx.t("holy-grail.captured")),
        h("ul", { class: "hg-piles" }, piles.map((pile, seat) => pile.length
          ? h("li", null,
            h("span", { class: "hg-pile-name" }, ctx.seatName(seat)),
            h("span", { class: "hg-pile-points" }, ctx.t("holy-grail.points", { n: pilePoints(pile, players) })),
            cardRow(pile, "extarot"))
          : null))));
    }
  },

  /** Leading a heart before hearts are broken is the one refusal the generic table cannot word. */
  refusalReason(card, ctx) {
    const leading = !(ctx.view.trick && ctx.view.trick.cards && ctx.view.trick.cards.length);
    if (ctx.isMyTurn && leading && card[0] === "H" && !ctx.view.hearts_broken) return ctx.t("holy-grail.refuse.hearts");
    return null;
  },

  seatBadges(seat, ctx) {
    const view = ctx.view;
    if (view.phase !== "play" || !view.captured_hearts) return null;
    const pile = view.captured_hearts[seat] || [];
    return h("span", { class: "hg-badge" },
      ctx.t("holy-grail.badge", { count: pile.length, points: pilePoints(pile, view.players) }),
      view.tricks_won ? h("span", { class: "hg-tricks" }, ` · ${ctx.t("holy-grail.tricks", { n: view.tricks_won[seat] })}`) : null);
  },

  renderHandResult(container, ctx, hand) {
    const details = hand.details || {};
    const players = hand.scores.length;
    const piles = details.captured_hearts || [];
    const base = details.base;
    const holderOf = (card) => piles.findIndex((pile) => pile.includes(card));
    const zeroHolder = holderOf("H0");
    const notes = [];
    if (details.moon_seat !== null && details.moon_seat !== undefined) {
      notes.push(ctx.t("holy-grail.moon", {
        name: ctx.seatName(details.moon_seat), others: players - 1, score: formatScore(hand.scores[details.moon_seat]),
      }));
    } else {
      notes.push(ctx.t("holy-grail.plain", { base }));
      const name = zeroHolder >= 0 ? ctx.seatName(zeroHolder) : "";
      if (details.doubled && details.flipped) notes.push(ctx.t("holy-grail.both", { name }));
      else if (details.doubled) notes.push(ctx.t("holy-grail.doubled", { name }));
      else if (details.flipped) notes.push(ctx.t("holy-grail.flipped", { name }));
    }
    // data-label: on a phone each seat is a stacked block of labelled cells, its hearts a fan.
    const label = (key) => ctx.t(`holy-grail.col.${key}`);
    const rows = hand.scores.map((score, seat) => h("tr", null,
      h("th", null, ctx.seatName(seat)),
      h("td", { class: "hg-result-cards", "data-label": label("hearts") }, piles[seat] && piles[seat].length
        ? h("div", { class: "card-row hg-fan fan-row" }, piles[seat].map((code) => cardEl(code, "extarot", { size: "sm" })))
        : ctx.t("holy-grail.none")),
      h("td", { class: "num", "data-label": label("points") }, String(details.points ? details.points[seat] : "")),
      h("td", { class: "num", "data-label": label("base") }, String(base ?? "")),
      h("td", { class: "num", "data-label": label("diff") }, details.points ? formatScore(details.points[seat] - base) : ""),
      h("td", { class: "num strong", "data-label": label("score") }, formatScore(score))));
    container.append(
      h("div", { class: "table-scroll" }, h("table", { class: "score-table hg-result stacks", "data-testid": "hg-result" },
        h("thead", null, h("tr", null,
          ["player", "hearts", "points", "base", "diff", "score"].map((key) => h("th", null, label(key))))),
        h("tbody", null, rows))),
      h("ul", { class: "hg-notes" }, notes.map((note) => h("li", null, note))),
    );
  },
};
