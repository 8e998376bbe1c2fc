/**
 * Draws any card code of the three decks (docs/ENGINE_CONTRACT.md) as a small HTML/SVG card.
 *
 * Codes alone are ambiguous across decks ("SC" is an ExTarot knight of Magic Swords and a
 * French-tarot cavalier of spades; "S1" an ExTarot ace or a French 1), so every call names the
 * deck: "extarot", "standard" or "french". A plugin declares its deck; `deckForGame` is a
 * fallback for pages drawn without one (history).
 *
 * ExTarot suits each get a colour and an emblem of their own so they are told apart at a glance:
 * 聖杯 Holy Grail (red chalice), 金貨 Coins (gold coin), 聖樹 Sacred Tree (green tree),
 * 魔剣 Magic Sword (blue sword). Majors are violet with their number; 0, 22 and 23 carry names.
 */
import { h, svg } from "./dom.js";
import { lang } from "./i18n.js";

export const GAME_DECKS = {
  "holy-grail": "extarot",
  "fairy-500": "extarot",
  "yaya-fugou": "extarot",
  familia: "standard",
  "french-tarot": "french",
};

export function deckForGame(gameId) {
  return GAME_DECKS[gameId] || "extarot";
}

const EXTAROT_SUITS = {
  H: { en: "Holy Grail", ja: "聖杯", cls: "suit-grail" },
  D: { en: "Coins", ja: "金貨", cls: "suit-coins" },
  C: { en: "Sacred Tree", ja: "聖樹", cls: "suit-tree" },
  S: { en: "Magic Sword", ja: "魔剣", cls: "suit-sword" },
};

const STANDARD_SUITS = {
  S: { en: "Spades", ja: "スペード", symbol: "♠", cls: "suit-black" },
  H: { en: "Hearts", ja: "ハート", symbol: "♥", cls: "suit-red" },
  D: { en: "Diamonds", ja: "ダイヤ", symbol: "♦", cls: "suit-red" },
  C: { en: "Clubs", ja: "クラブ", symbol: "♣", cls: "suit-black" },
};

/** The name of a suit letter in a deck, in the reader's language ("M"/"T": majors/trumps). */
export function suitName(letter, deck) {
  const language = lang() === "ja" ? "ja" : "en";
  if (deck === "extarot" && letter === "M") return language === "ja" ? "大アルカナ" : "majors";
  if (deck === "french" && letter === "T") return language === "ja" ? "切り札" : "trumps";
  const suit = (deck === "extarot" ? EXTAROT_SUITS : STANDARD_SUITS)[letter];
  return suit ? suit[language] : letter;
}

const MAJOR_NAMES = {
  0: { en: "Fool", ja: "愚者" },
  22: { en: "Dream", ja: "夢" },
  23: { en: "Hope", ja: "希望" },
};

const EXTAROT_RANK_TEXT = { "-1": "−1", 1: "A", I: "∞" };
const EXTAROT_RANK_NAMES = {
  I: { en: "Infinity", ja: "∞" },
  J: { en: "Jack", ja: "ジャック" },
  C: { en: "Knight", ja: "ナイト" },
  Q: { en: "Queen", ja: "クイーン" },
  K: { en: "King", ja: "キング" },
  F: { en: "Fairy", ja: "フェアリー" },
};
const FRENCH_RANK_NAMES = {
  J: { en: "Jack", ja: "ジャック" },
  C: { en: "Knight", ja: "カバリエ" },
  Q: { en: "Queen", ja: "クイーン" },
  K: { en: "King", ja: "キング" },
};

/** Emblems of the four ExTarot suits, drawn in a 24×24 box. */
function emblem(suit, size) {
  const box = { viewBox: "0 0 24 24", width: size, height: size, class: "emblem", "aria-hidden": "true" };
  switch (suit) {
    case "H": // chalice
      return svg("svg", box,
        svg("path", { d: "M5 3h14c0 5.5-2.8 8.6-7 9.1C7.8 11.6 5 8.5 5 3z" }),
        svg("rect", { x: 11, y: 11.5, width: 2, height: 6 }),
        svg("path", { d: "M6.5 21c0-2 2.4-3.4 5.5-3.4s5.5 1.4 5.5 3.4z" }));
    case "D": // coin with a square hole
      return svg("svg", box,
        svg("circle", { cx: 12, cy: 12, r: 9.5 }),
        svg("circle", { cx: 12, cy: 12, r: 6.8, fill: "none", stroke: "#fff", "stroke-width": 1.2, opacity: 0.8 }),
        svg("rect", { x: 9.8, y: 9.8, width: 4.4, height: 4.4, fill: "#fff" }));
    case "C": // tree
      return svg("svg", box,
        svg("path", { d: "M12 1.5 18.5 10H15l5 7H4l5-7H5.5z" }),
        svg("rect", { x: 10.6, y: 17, width: 2.8, height: 5.5 }));
    case "S": // sword
      return svg("svg", box,
        svg("path", { d: "M12 1 14 4.5V15h-4V4.5z" }),
        svg("rect", { x: 6, y: 15, width: 12, height: 2.2, rx: 1 }),
        svg("rect", { x: 10.9, y: 17.2, width: 2.2, height: 4 }),
        svg("circle", { cx: 12, cy: 22.2, r: 1.5 }));
    default:
      return null;
  }
}

/** What a card is, in words and parts, for drawing and for screen readers. */
export function describeCard(code, deck) {
  const language = lang();
  if (deck === "extarot") {
    if (code[0] === "M") {
      const number = Number(code.slice(1));
      const name = MAJOR_NAMES[number];
      return {
        kind: "major",
        rank: String(number),
        suitCls: "suit-major",
        name: name ? name[language] : "",
        label: `${language === "ja" ? "大アルカナ" : "Major"} ${number}${name ? ` ${name[language]}` : ""}`,
      };
    }
    const suit = EXTAROT_SUITS[code[0]];
    const rankCode = code.slice(1);
    const rank = EXTAROT_RANK_TEXT[rankCode] ?? rankCode;
    const rankName = EXTAROT_RANK_NAMES[rankCode];
    return {
      kind: "minor",
      suit: code[0],
      rank,
      suitCls: suit ? suit.cls : "suit-unknown",
      name: rankName && !["I"].includes(rankCode) ? rankName[language] : "",
      // The visible text (rank, then the rank's name) is part of the name a screen reader says.
      label: `${suit ? suit[language] : code[0]} ${rank}${rankName && rankCode !== "I" ? ` ${rankName[language]}` : ""}`,
    };
  }
  if (deck === "french") {
    if (code === "EX") {
      return { kind: "excuse", rank: "★", suitCls: "suit-trump", name: language === "ja" ? "エクスキューズ" : "Excuse",
        label: language === "ja" ? "エクスキューズ" : "Excuse" };
    }
    if (code[0] === "T") {
      const number = code.slice(1);
      return { kind: "trump", rank: number, suitCls: "suit-trump", name: "",
        label: `${language === "ja" ? "切り札" : "Trump"} ${number}` };
    }
    const suit = STANDARD_SUITS[code[0]];
    const rankCode = code.slice(1);
    const rankName = FRENCH_RANK_NAMES[rankCode];
    return { kind: "suit", suit: code[0], symbol: suit ? suit.symbol : "?", rank: rankCode, suitCls: suit ? suit.cls : "",
      name: "", label: `${suit ? suit[language] : code[0]} ${rankCode}${rankName ? ` ${rankName[language]}` : ""}` };
  }
  // standard
  if (code === "X") {
    return { kind: "joker", rank: "★", suitCls: "suit-joker", name: "JOKER", label: language === "ja" ? "ジョーカー" : "Joker" };
  }
  const suit = STANDARD_SUITS[code[0]];
  const rank = code.slice(1);
  return { kind: "suit", suit: code[0], symbol: suit ? suit.symbol : "?", rank, suitCls: suit ? suit.cls : "", name: "",
    label: `${suit ? suit[language] : code[0]} ${rank}` };
}

/**
 * A card element. `options.state` is "legal" (highlighted, clickable), "disabled" (dimmed),
 * "selected" or "" (plain); `options.onClick` makes it a button; `options.size` "sm" draws it small.
 */
export function cardEl(code, deck, options = {}) {
  const info = describeCard(code, deck);
  const interactive = typeof options.onClick === "function";
  // A disabled card with a click handler stays clickable (the table says why it cannot be
  // played) but is marked aria-disabled; without a handler it is a plain disabled button.
  const clickable = interactive;
  const classes = ["card", info.suitCls, `card-${info.kind}`, options.size === "sm" && "card-sm", options.state && `is-${options.state}`,
    ...(options.extraClasses || [])];
  const corner = h("span", { class: "card-corner" },
    h("span", { class: "card-rank" }, info.rank),
    info.kind === "minor" ? emblem(info.suit, 13) : info.symbol ? h("span", { class: "card-pip", "aria-hidden": "true" }, info.symbol) : null);
  // The big centre repeats the corner: drawn by CSS from data-glyph, so the card's text (which a
  // screen reader's name must contain) is the corner and the rank's name, once each.
  let center;
  if (info.kind === "minor") center = emblem(info.suit, 30);
  else if (info.kind === "major" || info.kind === "trump") center = h("span", { class: "card-major-no", dataset: { glyph: info.rank } });
  else center = h("span", { class: "card-pip-big", dataset: { glyph: info.symbol || info.rank } });
  const el = h(interactive ? "button" : "div", {
    class: classes,
    type: interactive ? "button" : null,
    "aria-disabled": interactive && options.state === "disabled" ? "true" : null,
    title: info.label,
    "aria-label": info.label,
    "aria-pressed": options.state === "selected" ? "true" : null,
    dataset: { card: code },
    onclick: clickable ? () => options.onClick(code) : null,
  }, corner, h("span", { class: "card-center", "aria-hidden": "true" }, center), info.name ? [" ", h("span", { class: "card-name" }, info.name)] : null);
  return el;
}

/** A face-down card (other seats' hands are counts only). */
export function cardBack(options = {}) {
  return h("div", { class: ["card", "card-back", options.size === "sm" && "card-sm"], "aria-hidden": "true" });
}

const EXTAROT_RANK_ORDER = ["-1", "0", ...Array.from({ length: 15 }, (_, i) => String(i + 1)), "J", "C", "Q", "K", "I", "F"];
const STANDARD_RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const FRENCH_RANK_ORDER = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"];

/** A sort key that groups a hand by suit and orders ranks the way the deck prints them. */
export function cardSortKey(code, deck) {
  if (deck === "extarot") {
    if (code[0] === "M") return [4, Number(code.slice(1))];
    return ["HDCS".indexOf(code[0]), EXTAROT_RANK_ORDER.indexOf(code.slice(1))];
  }
  if (deck === "french") {
    if (code === "EX") return [5, 0];
    if (code[0] === "T") return [4, Number(code.slice(1))];
    return ["SHCD".indexOf(code[0]), FRENCH_RANK_ORDER.indexOf(code.slice(1))];
  }
  if (code === "X") return [5, 0];
  return ["SHCD".indexOf(code[0]), STANDARD_RANK_ORDER.indexOf(code.slice(1))];
}

export function sortCards(cards, deck) {
  return [...cards].sort((a, b) => {
    const ka = cardSortKey(a, deck);
    const kb = cardSortKey(b, deck);
    return ka[0] - kb[0] || ka[1] - kb[1];
  });
}

/** A row of cards (a trick, captured cards), each drawn small unless told otherwise. */
export function cardRow(cards, deck, options = {}) {
  return h("div", { class: "card-row" }, cards.map((code) => cardEl(code, deck, { size: options.size ?? "sm" })));
}
