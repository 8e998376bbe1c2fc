/**
 * Yaya Fugou (yaya-fugou): the table plugin.
 *
 * A climbing game: every play is a group of cards, so the hand is a selection. Clicking cards
 * selects them; the controls right above the hand (`handControls`) say at once whether the
 * selection is a legal play and, when it holds F's, offer one button per thing the F's may stand
 * for (the legal list already holds every distinct naming; the engine accepts any of the
 * player's F's, so the buttons send the F's the player picked). The panel shows the pile of the current round with who played what, a
 * revolution banner, the exchange (the forced cards of a poorer player come preselected), and
 * what this seat gave and received. Seat boxes carry the title from the last hand, the place
 * reached in this one and a "passed" mark. The hand result lists places, titles and points.
 */
import { h } from "../js/dom.js";
import { cardRow } from "../js/cards.js";
import { formatScore, narrowScreen } from "../js/table.js";

const P = "yaya-fugou.";

const SUIT_NAMES = {
  H: { en: "Holy Grail", ja: "聖杯" },
  D: { en: "Coins", ja: "金貨" },
  C: { en: "Sacred Tree", ja: "聖樹" },
  S: { en: "Magic Sword", ja: "魔剣" },
};

const TITLE_FALLBACK = {
  daifugou: { en: "Tycoon", ja: "大富豪" },
  fugou: { en: "Rich", ja: "富豪" },
  yaya_fugou: { en: "Fairly Rich", ja: "やや富豪" },
  heimin: { en: "Commoner", ja: "平民" },
  yaya_hinmin: { en: "Fairly Poor", ja: "やや貧民" },
  hinmin: { en: "Poor", ja: "貧民" },
  daihinmin: { en: "Beggar", ja: "大貧民" },
};

/** Natural ranks weakest first (normal order); "1" is the ace. */
const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K", "1", "2"];

const strings = {
  en: {
    [`${P}last_play`]: "Last play",
    [`${P}option.points_daifugou`]: "Points for the Tycoon (大富豪)",
    [`${P}option.points_daifugou.help`]: "Match points the first out wins each hand; the Beggar (大貧民) loses as many.",
    [`${P}option.points_fugou`]: "Points for the Rich (富豪)",
    [`${P}option.points_fugou.help`]: "Match points for second place; the Poor (貧民) loses as many.",
    [`${P}option.points_yaya_fugou`]: "Points for the Fairly Rich (やや富豪)",
    [`${P}option.points_yaya_fugou.help`]: "With 6 or more players: third place wins these, the Fairly Poor (やや貧民) loses as many.",
    [`${P}option.exchange`]: "Exchange cards between titles",
    [`${P}option.exchange.help`]: "From the second hand on, the poorer players give their strongest cards and get cards back.",
    [`${P}option.revolution`]: "Revolutions",
    [`${P}option.revolution.help`]: "A play of four or more cards reverses the strength of every card but F.",
    [`${P}revolution`]: "REVOLUTION — natural cards are reversed (3 strongest, 2 weakest; F still on top)",
    [`${P}revolution_used`]: "The revolution is over: strength is normal and cannot be reversed again this hand",
    [`${P}normal`]: "Normal strength: F > 2 > A > K > Q > C > J > 10 … 3",
    [`${P}pile`]: "On the table",
    [`${P}pile_empty`]: "The table is clear: {name} leads.",
    [`${P}by`]: "by {name}",
    [`${P}earlier`]: "Earlier in this round",
    [`${P}passed`]: "Passed: {names}",
    [`${P}kind.single`]: "Single {rank}",
    [`${P}kind.set`]: "{n} × {rank}",
    [`${P}kind.straight`]: "Straight {low}–{high} ({suit})",
    [`${P}kind.fset`]: "{n} × F (unbeatable set)",
    [`${P}kind.fsingle`]: "F (unbeatable single)",
    [`${P}f_as`]: "F = {card}",
    [`${P}select_hint`]: "Select cards, then play. Beat: {top}.",
    [`${P}hand_hint`]: "Select cards, then press Play",
    [`${P}lead_hint`]: "You lead: select a single, a set of one rank, or a straight of 3+ in one suit.",
    [`${P}selected_none`]: "No card selected.",
    [`${P}legal`]: "✓ Legal play",
    [`${P}illegal`]: "✗ Not a legal play here",
    [`${P}choose_f`]: "Choose what your F stands for:",
    [`${P}play`]: "Play {what}",
    [`${P}clear`]: "Clear selection",
    [`${P}pass`]: "Pass",
    [`${P}f_only_warning`]: "Careful: going out with F's alone puts you last.",
    [`${P}exchange`]: "Card exchange",
    [`${P}exchange_pair`]: "{giver} ({gtitle}) → {receiver} ({rtitle}): {n} card(s)",
    [`${P}exchange_done`]: "done",
    [`${P}exchange_waiting`]: "waiting",
    [`${P}give_forced`]: "You must give your {n} strongest card(s) to {name}. They are preselected{choice}.",
    [`${P}give_forced_choice`]: "; among equal cards you may pick others",
    [`${P}give_free`]: "Give {n} card(s) of your choice to {name} (select them).",
    [`${P}give`]: "Give {cards}",
    [`${P}give_need`]: "Select {n} card(s).",
    [`${P}you_gave`]: "You gave",
    [`${P}you_received`]: "You received",
    [`${P}first_lead.coins3`]: "First hand: the holder of the Coins 3 leads.",
    [`${P}first_lead.weakest`]: "The Coins 3 is set aside: the holder of the weakest dealt card leads.",
    [`${P}first_lead.daihinmin`]: "The last hand's Beggar (大貧民) leads.",
    [`${P}aside`]: "{n} cards set aside face down",
    [`${P}place`]: "{n}th out",
    [`${P}place1`]: "1st out",
    [`${P}place2`]: "2nd out",
    [`${P}place3`]: "3rd out",
    [`${P}f_out`]: "out on F (last)",
    [`${P}badge_passed`]: "passed",
    [`${P}badge_top`]: "on top",
    [`${P}r.place`]: "Place",
    [`${P}r.player`]: "Player",
    [`${P}r.title`]: "Title",
    [`${P}r.points`]: "Points",
    [`${P}r.f_out`]: "{names} went out on F's alone and placed last.",
    [`${P}r.left`]: "{name} was left holding {n} card(s).",
    [`${P}r.revolution`]: "A revolution happened this hand.",
    [`${P}r.next`]: "Next hand: the titles exchange cards, then the Beggar leads.",
  },
  ja: {
    [`${P}last_play`]: "直前のプレイ",
    [`${P}option.points_daifugou`]: "大富豪の点数",
    [`${P}option.points_daifugou.help`]: "毎ハンド最初に上がった人が得る試合点。大貧民は同じだけ失います。",
    [`${P}option.points_fugou`]: "富豪の点数",
    [`${P}option.points_fugou.help`]: "2位の試合点。貧民は同じだけ失います。",
    [`${P}option.points_yaya_fugou`]: "やや富豪の点数",
    [`${P}option.points_yaya_fugou.help`]: "6人以上のとき3位が得る試合点。やや貧民は同じだけ失います。",
    [`${P}option.exchange`]: "称号どうしのカード交換",
    [`${P}option.exchange.help`]: "2ハンド目から、下位の人が強いカードを渡し、上位の人からカードを受け取ります。",
    [`${P}option.revolution`]: "革命",
    [`${P}option.revolution.help`]: "4枚以上のプレイで、F以外のカードの強さが逆になります。",
    [`${P}revolution`]: "革命中 — 数字の強さが逆転（3が最強・2が最弱。Fは最強のまま）",
    [`${P}revolution_used`]: "革命は終わりました。強さは元通りで、このハンドでは再び革命は起きません",
    [`${P}normal`]: "通常の強さ：F > 2 > A > K > Q > C > J > 10 … 3",
    [`${P}pile`]: "場のカード",
    [`${P}pile_empty`]: "場は流れました。{name} が親です。",
    [`${P}by`]: "{name} が出しました",
    [`${P}earlier`]: "このラウンドでそれまでに出たカード",
    [`${P}passed`]: "パスした人：{names}",
    [`${P}kind.single`]: "{rank} を1枚",
    [`${P}kind.set`]: "{rank} を{n}枚",
    [`${P}kind.straight`]: "階段 {low}〜{high}（{suit}）",
    [`${P}kind.fset`]: "F を{n}枚（最強の組）",
    [`${P}kind.fsingle`]: "F 1枚（最強）",
    [`${P}f_as`]: "F = {card}",
    [`${P}select_hint`]: "カードを選んで出してください。場：{top}",
    [`${P}hand_hint`]: "カードを選んで「出す」を押してください",
    [`${P}lead_hint`]: "あなたが親です。1枚、同じ数字の組、または同じスートで3枚以上続く階段を選んでください。",
    [`${P}selected_none`]: "カードが選ばれていません。",
    [`${P}legal`]: "✓ 出せます",
    [`${P}illegal`]: "✗ この組み合わせは出せません",
    [`${P}choose_f`]: "F を何として使うか選んでください：",
    [`${P}play`]: "{what} を出す",
    [`${P}clear`]: "選択を解除",
    [`${P}pass`]: "パス",
    [`${P}f_only_warning`]: "注意：F だけを出してあがると最下位になります。",
    [`${P}exchange`]: "カード交換",
    [`${P}exchange_pair`]: "{giver}（{gtitle}）→ {receiver}（{rtitle}）：{n}枚",
    [`${P}exchange_done`]: "済",
    [`${P}exchange_waiting`]: "待ち",
    [`${P}give_forced`]: "一番強いカード{n}枚を {name} に渡します。選択済みです{choice}。",
    [`${P}give_forced_choice`]: "（同じ強さのカードの中では選び直せます）",
    [`${P}give_free`]: "{name} に渡すカードを{n}枚選んでください。",
    [`${P}give`]: "{cards} を渡す",
    [`${P}give_need`]: "{n}枚選んでください。",
    [`${P}you_gave`]: "渡したカード",
    [`${P}you_received`]: "受け取ったカード",
    [`${P}first_lead.coins3`]: "最初のハンド：金貨の3を持つ人が親です。",
    [`${P}first_lead.weakest`]: "金貨の3は伏せ札です。配られた中で一番弱いカードを持つ人が親です。",
    [`${P}first_lead.daihinmin`]: "前のハンドの大貧民が親です。",
    [`${P}aside`]: "伏せ札 {n}枚",
    [`${P}place`]: "{n}番目にあがり",
    [`${P}place1`]: "1番にあがり",
    [`${P}place2`]: "2番目にあがり",
    [`${P}place3`]: "3番目にあがり",
    [`${P}f_out`]: "Fであがり（最下位）",
    [`${P}badge_passed`]: "パス",
    [`${P}badge_top`]: "場に出し中",
    [`${P}r.place`]: "順位",
    [`${P}r.player`]: "プレイヤー",
    [`${P}r.title`]: "称号",
    [`${P}r.points`]: "得点",
    [`${P}r.f_out`]: "{names} は F だけであがったので最下位です。",
    [`${P}r.left`]: "{name} は手札{n}枚を残していました。",
    [`${P}r.revolution`]: "このハンドでは革命が起きました。",
    [`${P}r.next`]: "次のハンド：称号に応じてカードを交換し、大貧民が親になります。",
  },
};

// ---- card helpers ---------------------------------------------------------------------------
const isF = (card) => card.slice(1) === "F";
const rankOf = (card) => card.slice(1);
const strength = (card) => (isF(card) ? 14 : RANKS.indexOf(rankOf(card)));
const rankText = (rank) => (rank === "1" ? "A" : rank);

function suitName(ctx, suit) {
  return (SUIT_NAMES[suit] || { en: suit, ja: suit })[ctx.lang] || SUIT_NAMES[suit].en;
}

function cardText(ctx, card) {
  return `${suitName(ctx, card[0])} ${rankText(rankOf(card))}`;
}

function titleName(ctx, title) {
  if (!title) return "";
  const names = (ctx.view.title_names && ctx.view.title_names[title]) || TITLE_FALLBACK[title];
  return names ? names[ctx.lang] || names.en : title;
}

/** Kind, size and rank of a play from its cards and F names (the same reading as the engine). */
function describePlay(ctx, cards, asMap) {
  const naturals = cards.filter((c) => !isF(c));
  if (!naturals.length) {
    return cards.length === 1 ? ctx.t(`${P}kind.fsingle`) : ctx.t(`${P}kind.fset`, { n: cards.length });
  }
  const members = [...naturals, ...Object.values(asMap || {})];
  const ranks = members.map(strength);
  if (members.length === 1) return ctx.t(`${P}kind.single`, { rank: rankText(rankOf(members[0])) });
  if (ranks.every((r) => r === ranks[0])) {
    return ctx.t(`${P}kind.set`, { n: members.length, rank: rankText(rankOf(members[0])) });
  }
  const low = Math.min(...ranks);
  const high = Math.max(...ranks);
  return ctx.t(`${P}kind.straight`, { low: rankText(RANKS[low]), high: rankText(RANKS[high]), suit: suitName(ctx, members[0][0]) });
}

function fNames(ctx, cards, asMap) {
  const entries = Object.entries(asMap || {});
  if (!entries.length) return "";
  const naturals = cards.filter((c) => !isF(c));
  const isSet = naturals.length && [...naturals, ...entries.map(([, n]) => n)].every((c) => strength(c) === strength(naturals[0]));
  // In a set the suit an F names does not matter, so only its rank is shown.
  return entries.map(([, named]) => ctx.t(`${P}f_as`, { card: isSet ? rankText(rankOf(named)) : cardText(ctx, named) })).join(", ");
}

function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join(",") === [...b].sort().join(",");
}

/** Whether `action` plays exactly the selected cards, F's being interchangeable. */
function matchesSelection(action, selected) {
  const naturals = selected.filter((c) => !isF(c));
  const fCount = selected.length - naturals.length;
  const actionNaturals = action.cards.filter((c) => !isF(c));
  return sameCards(actionNaturals, naturals) && action.cards.length - actionNaturals.length === fCount;
}

/** The legal action rewritten with the F's the player actually selected. */
function withSelectedFs(action, selected) {
  const mine = selected.filter(isF);
  const canonical = action.cards.filter(isF);
  const swap = Object.fromEntries(canonical.map((f, i) => [f, mine[i]]));
  const out = { type: action.type, cards: action.cards.map((c) => (isF(c) ? swap[c] : c)) };
  if (action.as) out.as = Object.fromEntries(Object.entries(action.as).map(([f, named]) => [swap[f], named]));
  return out;
}

function myExchangeStep(ctx) {
  const view = ctx.view;
  if (view.phase !== "exchange" || !ctx.isMyTurn) return null;
  for (const step of view.exchange || []) {
    if (step.giver === ctx.seat && !step.given) return { step, poorer: true };
    if (step.receiver === ctx.seat && step.given && !step.returned) return { step, poorer: false };
  }
  return null;
}

/** The selection, or for a poorer player in the exchange the forced cards until they pick. */
function effectiveSelection(ctx) {
  const mine = myExchangeStep(ctx);
  if (mine && mine.poorer && !ctx.selected.length) return [...(ctx.view.forced || [])];
  return ctx.selected;
}

function placeText(ctx, place) {
  if (place === 1) return ctx.t(`${P}place1`);
  if (place === 2) return ctx.t(`${P}place2`);
  if (place === 3) return ctx.t(`${P}place3`);
  return ctx.t(`${P}place`, { n: place });
}

// ---- panel parts ---------------------------------------------------------------------------------
function strengthBanner(ctx) {
  const view = ctx.view;
  if (view.revolution) {
    return h("div", {
      class: "yf-revolution",
      "data-testid": "yf-revolution",
      dataset: { on: "1" },
      style: { background: "#c92a2a", color: "#fff", fontWeight: "700", padding: "0.35rem 0.6rem", borderRadius: "6px", margin: "0.2rem 0" },
    }, `⟲ ${ctx.t(`${P}revolution`)}`);
  }
  return h("div", { class: "yf-revolution", "data-testid": "yf-revolution", dataset: { on: "0" } },
    h("span", { class: ["chip", view.revolution_used ? "chip-hot" : "chip-cool"] },
      ctx.t(view.revolution_used ? `${P}revolution_used` : `${P}normal`)));
}

function pilePanel(ctx) {
  const view = ctx.view;
  const pile = view.pile || [];
  const top = view.top;
  const box = h("div", { class: "yf-pile", "data-testid": "yf-pile", style: { margin: "0.3rem 0" } },
    h("strong", null, ctx.t(`${P}pile`)));
  if (!top) {
    const leader = view.leader ?? (view.to_act || [])[0];
    box.append(h("p", { class: "muted", "data-testid": "yf-pile-empty" },
      leader !== undefined && leader !== null ? ctx.t(`${P}pile_empty`, { name: ctx.seatName(leader) }) : ""));
  } else {
    const label = describePlay(ctx, top.cards, top.as);
    const names = fNames(ctx, top.cards, top.as);
    box.append(h("div", { class: "yf-top", "data-testid": "yf-top", dataset: { seat: String(top.seat), kind: top.kind, size: String(top.size) },
      style: { display: "flex", gap: "0.6rem", alignItems: "center", flexWrap: "wrap" } },
    // Small cards on phones: the felt shows the same play, and the felt needs the height.
    h("div", { class: "card-row" }, top.cards.map((c) => ctx.card(c, { size: narrowScreen() ? "sm" : "" }))),
    h("div", null,
      h("div", { style: { fontWeight: "700" } }, label),
      names ? h("div", null, names) : null,
      h("div", { class: "muted" }, ctx.t(`${P}by`, { name: ctx.seatName(top.seat) })))));
    if (pile.length > 1) {
      box.append(h("details", { class: "yf-earlier" },
        h("summary", null, ctx.t(`${P}earlier`)),
        h("ol", { style: { margin: "0.2rem 0", paddingLeft: "1.2rem" } }, pile.slice(0, -1).map((play) =>
          h("li", null, h("strong", null, ctx.seatName(play.seat)), " — ", describePlay(ctx, play.cards, play.as), " ",
            cardRow(play.cards, "extarot"))))));
    }
  }
  if ((view.passed || []).length) {
    box.append(h("div", { class: "muted", "data-testid": "yf-passed" },
      ctx.t(`${P}passed`, { names: view.passed.map((s) => ctx.seatName(s)).join(", ") })));
  }
  return box;
}

/** What to beat (or how to lead), in the panel beside the pile. */
function playHint(ctx) {
  const view = ctx.view;
  return h("p", { class: "yf-hint" }, view.top
    ? ctx.t(`${P}select_hint`, { top: describePlay(ctx, view.top.cards, view.top.as) })
    : ctx.t(`${P}lead_hint`));
}

/** The selection's verdict and its Play buttons, drawn right above the hand (`handControls`),
 * where the fingers and the pointer already are. */
function playControls(ctx) {
  const view = ctx.view;
  const selected = ctx.selected;
  const plays = ctx.legal.filter((a) => a.type === "play");
  const box = h("div", { class: "yf-controls hand-controls", "data-testid": "yf-play-controls" });
  if (!selected.length) {
    box.append(h("p", { class: "muted", "data-testid": "yf-selection", dataset: { legal: "none" } }, ctx.t(`${P}selected_none`)));
    return box;
  }
  const candidates = plays.filter((a) => matchesSelection(a, selected));
  box.append(h("p", {
    "data-testid": "yf-selection",
    dataset: { legal: candidates.length ? "1" : "0" },
    style: { fontWeight: "700", color: candidates.length ? "#2b8a3e" : "#c92a2a" },
  }, ctx.t(candidates.length ? `${P}legal` : `${P}illegal`)));
  if (candidates.length > 1) box.append(h("p", null, ctx.t(`${P}choose_f`)));
  const buttons = h("div", { class: "action-buttons", style: { margin: "0" } });
  for (const candidate of candidates) {
    const action = withSelectedFs(candidate, selected);
    const what = [describePlay(ctx, action.cards, action.as), fNames(ctx, action.cards, action.as)].filter(Boolean).join(" · ");
    buttons.append(h("button", { type: "button", class: "primary", "data-testid": "yf-play", onclick: () => ctx.send(action) },
      ctx.t(`${P}play`, { what })));
  }
  buttons.append(h("button", { type: "button", "data-testid": "yf-clear", onclick: () => ctx.setSelected([]) }, ctx.t(`${P}clear`)));
  box.append(buttons);
  const rest = (view.hand || []).filter((c) => !selected.includes(c));
  if (candidates.length && rest.length && rest.every(isF)) box.append(h("p", { class: "chip chip-hot" }, ctx.t(`${P}f_only_warning`)));
  return box;
}

function exchangePanel(ctx) {
  const view = ctx.view;
  const titles = view.titles || [];
  const box = h("div", { class: "yf-exchange", "data-testid": "yf-exchange", style: { margin: "0.3rem 0" } },
    h("strong", null, ctx.t(`${P}exchange`)),
    h("ul", { style: { margin: "0.2rem 0", paddingLeft: "1.2rem" } }, (view.exchange || []).map((step) => h("li", null,
      ctx.t(`${P}exchange_pair`, {
        giver: ctx.seatName(step.giver), gtitle: titleName(ctx, titles[step.giver]),
        receiver: ctx.seatName(step.receiver), rtitle: titleName(ctx, titles[step.receiver]), n: step.count,
      }),
      " — ",
      `${step.given ? "✓" : "…"} / ${step.returned ? "✓" : "…"}`))));
  const mine = myExchangeStep(ctx);
  if (mine) {
    const { step, poorer } = mine;
    const target = poorer ? step.receiver : step.giver;
    const legal = ctx.legal.filter((a) => a.type === "give");
    const hasChoice = legal.length > 1;
    box.append(h("p", null, poorer
      ? ctx.t(`${P}give_forced`, { n: step.count, name: ctx.seatName(target), choice: hasChoice ? ctx.t(`${P}give_forced_choice`) : "" })
      : ctx.t(`${P}give_free`, { n: step.count, name: ctx.seatName(target) })));
  }
  return box;
}

/** The exchange's Give button for the selected cards, right above the hand. */
function giveControls(ctx) {
  const mine = myExchangeStep(ctx);
  if (!mine) return null;
  const selection = effectiveSelection(ctx);
  const match = ctx.legal.filter((a) => a.type === "give").find((a) => matchesSelection(a, selection));
  const box = h("div", { class: "hand-controls" });
  if (match) {
    const action = withSelectedFs(match, selection);
    box.append(h("button", { type: "button", class: "primary", "data-testid": "yf-give", onclick: () => ctx.send(action) },
      ctx.t(`${P}give`, { cards: action.cards.map((c) => cardText(ctx, c)).join(", ") })));
  } else {
    box.append(h("p", { class: "muted", "data-testid": "yf-give-need" }, ctx.t(`${P}give_need`, { n: mine.step.count })));
  }
  return box;
}

function swapsPanel(ctx) {
  const view = ctx.view;
  const gave = view.exchange_given || [];
  const got = view.exchange_received || [];
  if (!gave.length && !got.length) return null;
  return h("div", { class: "yf-swaps", "data-testid": "yf-swaps", style: { display: "flex", gap: "1rem", flexWrap: "wrap", margin: "0.3rem 0" } },
    gave.length ? h("div", null, h("span", { class: "muted" }, ctx.t(`${P}you_gave`)), cardRow(gave, "extarot")) : null,
    got.length ? h("div", null, h("span", { class: "muted" }, ctx.t(`${P}you_received`)), cardRow(got, "extarot")) : null);
}

function cardIsUsable(ctx, card) {
  const plays = ctx.legal.filter((a) => a.type === "play");
  if (isF(card)) return plays.some((a) => a.cards.some(isF));
  return plays.some((a) => a.cards.includes(card));
}

export default {
  deck: "extarot",
  direction: "ccw",
  // The box under the felt shows the play that cleared the table, not a trick of one card each.
  lastTrickLabel: `${P}last_play`,
  rulesPath: "/rules/yaya-fugou",
  strings,

  /** The engine sends each hand weakest to strongest (normal order), which is how players hold it. */
  sortHand: (cards) => cards,

  cardState(card, ctx) {
    if (!ctx.isMyTurn) return "";
    const view = ctx.view;
    if (view.phase === "exchange") {
      if (effectiveSelection(ctx).includes(card)) return "selected";
      const gives = ctx.legal.filter((a) => a.type === "give");
      const usable = gives.some((a) => a.cards.includes(card) || (isF(card) && a.cards.some(isF)));
      return usable ? "legal" : "disabled";
    }
    if (ctx.selected.includes(card)) return "selected";
    return cardIsUsable(ctx, card) ? "legal" : "disabled";
  },

  onCardClick(card, ctx) {
    const current = effectiveSelection(ctx);
    const next = current.includes(card) ? current.filter((c) => c !== card) : [...current, card];
    ctx.setSelected(next);
    return true;
  },

  /** A click selects a card here, so the table's "click to play" hint would mislead. */
  handHint(ctx) {
    if (ctx.view.phase !== "play" || !ctx.legal.some((a) => a.type === "play")) return null;
    return ctx.t(`${P}hand_hint`);
  },

  buttonActions: (ctx) => ctx.legal.filter((a) => a.type === "pass"),

  /** Play and Give sit right above the hand: the selection is made there. */
  handControls(ctx) {
    if (!ctx.isMyTurn) return null;
    if (ctx.view.phase === "play") return playControls(ctx);
    if (ctx.view.phase === "exchange") return giveControls(ctx);
    return null;
  },

  actionLabel(action, ctx) {
    return action.type === "pass" ? ctx.t(`${P}pass`) : action.type;
  },

  renderPanel(container, ctx) {
    const view = ctx.view;
    const panel = h("div", { class: "yf-panel", "data-testid": "yf-panel", dataset: { phase: view.phase } });
    if (view.phase === "play" || view.phase === "exchange") {
      panel.append(strengthBanner(ctx));
      const facts = [];
      if (view.first_lead) facts.push(h("span", { class: "chip" }, ctx.t(`${P}first_lead.${view.first_lead}`)));
      if (view.aside_count) facts.push(h("span", { class: "chip" }, ctx.t(`${P}aside`, { n: view.aside_count })));
      if (facts.length) panel.append(h("div", null, facts));
    }
    if (view.phase === "exchange") panel.append(exchangePanel(ctx));
    if (view.phase === "play") {
      panel.append(pilePanel(ctx));
      if (ctx.isMyTurn) panel.append(playHint(ctx));
    }
    if (view.phase === "play" || view.phase === "exchange") {
      const swaps = swapsPanel(ctx);
      if (swaps) panel.append(swaps);
    }
    container.append(panel);
  },

  seatBadges(seat, ctx) {
    const view = ctx.view;
    const badges = [];
    const title = view.titles ? view.titles[seat] : null;
    if (title) badges.push(h("span", { class: "chip", "data-testid": `yf-title-${seat}` }, titleName(ctx, title)));
    const place = view.places ? view.places[seat] : null;
    if (place) {
      const fOut = (view.f_out || []).includes(seat);
      badges.push(h("span", { class: ["chip", fOut ? "chip-hot" : "chip-cool"], "data-testid": `yf-place-${seat}` },
        fOut ? ctx.t(`${P}f_out`) : placeText(ctx, place)));
    }
    if ((view.passed || []).includes(seat)) badges.push(h("span", { class: "chip" }, ctx.t(`${P}badge_passed`)));
    if (view.top && view.top.seat === seat) badges.push(h("span", { class: "chip chip-hot" }, ctx.t(`${P}badge_top`)));
    return badges.length ? badges : null;
  },

  renderHandResult(container, ctx, hand) {
    const details = hand.details || {};
    const order = details.order || [];
    const titles = details.titles || [];
    const rows = order.map((seat, index) => h("tr", { dataset: { seat: String(seat) } },
      h("td", { class: "num" }, String(index + 1)),
      h("th", null, ctx.seatName(seat)),
      h("td", { "data-testid": `yf-r-title-${seat}` }, titleName(ctx, titles[seat])),
      h("td", { class: "num strong" }, formatScore(hand.scores[seat]))));
    const notes = [];
    if ((details.f_out || []).length) {
      notes.push(ctx.t(`${P}r.f_out`, { names: details.f_out.map((s) => ctx.seatName(s)).join(", ") }));
    }
    for (const seat of details.left_holding || []) {
      notes.push(ctx.t(`${P}r.left`, { name: ctx.seatName(seat), n: (details.cards_left || {})[String(seat)] ?? "?" }));
    }
    if (details.revolution_used) notes.push(ctx.t(`${P}r.revolution`));
    if (ctx.view.hands_total && hand.hand_no < ctx.view.hands_total) notes.push(ctx.t(`${P}r.next`));
    container.append(
      h("div", { class: "table-scroll" }, h("table", { class: "score-table yf-result", "data-testid": "yf-result" },
        h("thead", null, h("tr", null, [`${P}r.place`, `${P}r.player`, `${P}r.title`, `${P}r.points`].map((key) => h("th", null, ctx.t(key))))),
        h("tbody", null, rows))),
      h("ul", { class: "yf-notes" }, notes.map((note) => h("li", null, note))),
    );
  },
};
