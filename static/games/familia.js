/**
 * Familia (familia): the table plugin.
 *
 * The panel shows what is Familia's own: the two face-down face-card piles (and the choice
 * between them when it is your turn to turn one), the face card at stake with the led suit or
 * the trump, the face-up draw pile's top card, the batting cards of the trick in progress, the
 * last trick's judging step by step (batting, then rank collisions, then the winner or a void),
 * and every seat's won face cards. Seat badges show role (man/woman), team and crest. The hand
 * result explains each player's roles, singles and bonuses and the teams' ranking.
 */
import { h } from "../js/dom.js";
import { cardRow } from "../js/cards.js";
import { formatScore } from "../js/table.js";

const P = "familia.";
const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_RED = { H: true, D: true };

const strings = {
  en: {
    "familia.deal": "Deal {n} of {total}",
    "familia.trick": "Trick {n} of {total}",
    "familia.mode.lead": "Draw pile in play: the face card leads",
    "familia.mode.trump": "Draw pile gone: the face card's suit is trump",
    "familia.batting_familia": "Batting Familia: you must win if you can",
    "familia.rule.colour_rank": "Batting: same colour and rank",
    "familia.rule.suit_rank": "Batting: same suit and rank",
    "familia.rule.rank": "Batting: same rank",
    "familia.piles": "Face-card piles",
    "familia.pile.black": "Black pile (♠♣)",
    "familia.pile.red": "Red pile (♥♦)",
    "familia.pile.count": "{n} left",
    "familia.pile.choose": "Turn a card from the {pile}",
    "familia.pile.turn": "Turn from this pile",
    "familia.pile.your_choice": "Choose the pile to turn the next face card from:",
    "familia.face": "At stake",
    "familia.led": "Led suit: {suit}",
    "familia.no_lead": "Joker: no lead, no trump",
    "familia.trump": "Trump: {suit}",
    "familia.no_trump": "No trump",
    "familia.draw": "Draw pile (face up)",
    "familia.draw.count": "{n} cards",
    "familia.draw.empty": "empty",
    "familia.batting_now": "Batting cards in this trick",
    "familia.judging": "Last trick judged",
    "familia.step.batting": "Batting: these cards collide and leave",
    "familia.step.rank": "Nothing follows: equal ranks collide and leave",
    "familia.step.winner": "{name} wins the {face} with {card}",
    "familia.step.void": "Every card collided: the trick is void and the {face} is set aside",
    "familia.won": "Won face cards (face up)",
    "familia.none": "none",
    "familia.crest.choose": "Pick your team's crest suit (royal roles in it score double):",
    "familia.crest": "Crest {suit}",
    "familia.man": "♂ man",
    "familia.woman": "♀ woman",
    "familia.team": "team {team}",
    "familia.badge.won": "faces {n} · tricks {t}",
    "familia.known": "drew: {cards}",
    "familia.discarded": "Set aside after void tricks",
    "familia.col.player": "Player",
    "familia.col.role": "Role",
    "familia.col.won": "Won",
    "familia.col.roles": "Roles",
    "familia.col.singles": "Singles",
    "familia.col.zero_sum": "Zero-sum",
    "familia.col.misere": "Misère",
    "familia.col.points": "Points",
    "familia.col.team": "Team",
    "familia.col.face_cards": "Face cards",
    "familia.col.face_points": "Face points",
    "familia.col.place": "Place",
    "familia.col.hand": "Hand score",
    "familia.forced": "a joker fixed the roles",
    "familia.zeroed": "cancelled by a joker",
    "familia.standings": "Final standings (ties broken by face cards)",
    "familia.tiebreak": "Ties: fewer face cards, then fewer face-card points (K 3, Q 2, J 1) rank higher.",
    "familia.kind.royal_family": "Royal family",
    "familia.kind.royal_marriage": "Royal marriage",
    "familia.kind.familia": "Familia",
    "familia.kind.family": "Family",
    "familia.kind.marriage": "Marriage",
    "familia.kind.single": "Single",
    "familia.kind.joker": "Joker",
    "familia.option.teams": "Teams",
    "familia.option.roles": "Roles",
    "familia.seating.title": "Teams and roles by seat",
    "familia.seating.seat": "Seat",
    "familia.seating.player": "Player",
    "familia.seating.team": "Team",
    "familia.seating.role": "Role",
    "familia.seating.standard": "standard",
    "familia.seating.chosen": "chosen",
    "familia.seating.standard.pairs": "Standard for {n} seats: man/woman pairs, the men in seats 1–{half} and each partner opposite.",
    "familia.seating.standard.single": "Standard for {n} seats: individual play, every seat a man.",
    "familia.seating.help": "Seats with the same team letter score together; a different letter for every seat is individual play.",
    "familia.seating.reset": "Back to the standard",
    "familia.seating.ok": "The seating rules are met.",
    "familia.seating.off": "Seating rules are switched off: any arrangement is accepted.",
    "familia.seating.blocks": "The men must sit side by side and so must the women: two blocks round the table, not more.",
    "familia.seating.neighbours": "{a} and {b} are a man and a woman of team {team} sitting side by side.",
    "familia.option.seating_rules": "Check the seating rules",
    "familia.option.batting_familia": "Batting Familia (win when you can)",
    "familia.option.royal": "Royal crests",
    "familia.option.deals": "Deals per hand",
    "familia.option.face_sets": "Face-card sets",
    "familia.option.face_use": "Using the face-card sets",
    "familia.option.face_use.together": "all together for the whole hand",
    "familia.option.face_use.per_deal_carry": "one set per deal, leftovers carried over",
    "familia.option.face_use.per_deal_discard": "one set per deal, leftovers set aside",
    "familia.option.tricks": "Tricks per deal",
    "familia.option.hand_size": "Cards dealt per hand",
    "familia.option.hand_adjustment": "Hand adjustment (remove the lowest cards to fit)",
    "familia.option.hand_jokers": "Jokers in the hands (wild)",
    "familia.option.pile_jokers": "Jokers in the face-card piles",
  },
  ja: {
    "familia.deal": "第{n}ディール / 全{total}",
    "familia.trick": "{n}トリック目 / {total}",
    "familia.mode.lead": "山札あり：絵札がリード",
    "familia.mode.trump": "山札なし：絵札のスートが切り札",
    "familia.batting_familia": "バッティング・ファミリア：勝てるなら勝つカードを出す",
    "familia.rule.colour_rank": "バッティング：同じ色・同じランク",
    "familia.rule.suit_rank": "バッティング：同じスート・同じランク",
    "familia.rule.rank": "バッティング：同じランク",
    "familia.piles": "絵札の山",
    "familia.pile.black": "黒の絵札（♠♣）",
    "familia.pile.red": "赤の絵札（♥♦）",
    "familia.pile.count": "残り{n}枚",
    "familia.pile.choose": "{pile}からめくる",
    "familia.pile.turn": "この山からめくる",
    "familia.pile.your_choice": "次の絵札をめくる山を選んでください：",
    "familia.face": "賭けられた絵札",
    "familia.led": "リード：{suit}",
    "familia.no_lead": "ジョーカー：リードも切り札もなし",
    "familia.trump": "切り札：{suit}",
    "familia.no_trump": "切り札なし",
    "familia.draw": "山札（表向き）",
    "familia.draw.count": "{n}枚",
    "familia.draw.empty": "なし",
    "familia.batting_now": "このトリックのバッティングカード",
    "familia.judging": "直前のトリックの判定",
    "familia.step.batting": "バッティング：この札はぶつかって除外",
    "familia.step.rank": "フォロー札なし：同じランク同士がぶつかって除外",
    "familia.step.winner": "{name} が {card} で {face} を獲得",
    "familia.step.void": "全員の札が除外：トリックは流れ、{face} は捨て札に",
    "familia.won": "獲得した絵札（表向き）",
    "familia.none": "なし",
    "familia.crest.choose": "チームの家紋（スート）を選んでください（家紋のロイヤル役は得点が2倍）：",
    "familia.crest": "家紋 {suit}",
    "familia.man": "♂ 男性役",
    "familia.woman": "♀ 女性役",
    "familia.team": "チーム{team}",
    "familia.badge.won": "絵札{n}枚 · {t}トリック",
    "familia.known": "引いた札: {cards}",
    "familia.discarded": "流れたトリックの絵札",
    "familia.col.player": "プレイヤー",
    "familia.col.role": "役割",
    "familia.col.won": "獲得札",
    "familia.col.roles": "役",
    "familia.col.singles": "シングル",
    "familia.col.zero_sum": "ゼロサム",
    "familia.col.misere": "ミゼール",
    "familia.col.points": "得点",
    "familia.col.team": "チーム",
    "familia.col.face_cards": "絵札の枚数",
    "familia.col.face_points": "絵札の点数",
    "familia.col.place": "順位",
    "familia.col.hand": "このハンドの得点",
    "familia.forced": "ジョーカーにより役が固定",
    "familia.zeroed": "ジョーカーで0点",
    "familia.standings": "最終順位（同点は絵札で判定）",
    "familia.tiebreak": "同点のときは絵札の枚数が少ない方、さらに絵札の点数（K3・Q2・J1）が少ない方が上位です。",
    "familia.kind.royal_family": "ロイヤルファミリー",
    "familia.kind.royal_marriage": "ロイヤルマリッジ",
    "familia.kind.familia": "ファミリア",
    "familia.kind.family": "ファミリー",
    "familia.kind.marriage": "マリッジ",
    "familia.kind.single": "シングル",
    "familia.kind.joker": "ジョーカー",
    "familia.option.teams": "チーム",
    "familia.option.roles": "男女の役割",
    "familia.seating.title": "席ごとのチームと役割",
    "familia.seating.seat": "席",
    "familia.seating.player": "プレイヤー",
    "familia.seating.team": "チーム",
    "familia.seating.role": "役割",
    "familia.seating.standard": "標準",
    "familia.seating.chosen": "指定",
    "familia.seating.standard.pairs": "{n}席の標準：男女のペア戦。男性役は席1〜{half}、それぞれのパートナーは向かいの席。",
    "familia.seating.standard.single": "{n}席の標準：個人戦で、全員が男性役。",
    "familia.seating.help": "同じチーム文字の席は得点を合わせます。全席で別の文字にすると個人戦です。",
    "familia.seating.reset": "標準に戻す",
    "familia.seating.ok": "席順のルールを満たしています。",
    "familia.seating.off": "席順のルールの確認はオフです。どの並びでも始められます。",
    "familia.seating.blocks": "男性役どうし、女性役どうしはそれぞれ隣り合って座ります（卓を男女の2つのまとまりに分けます）。",
    "familia.seating.neighbours": "{a} と {b} はチーム{team}の男性役と女性役で、隣り合っています。",
    "familia.option.seating_rules": "席順のルールを確認する",
    "familia.option.batting_familia": "バッティング・ファミリア（勝てるなら勝つ）",
    "familia.option.royal": "ロイヤル（家紋）",
    "familia.option.deals": "ディール数",
    "familia.option.face_sets": "絵札の組数",
    "familia.option.face_use": "絵札の使い方",
    "familia.option.face_use.together": "通しで使う",
    "familia.option.face_use.per_deal_carry": "ディールごと（持ち越しあり）",
    "familia.option.face_use.per_deal_discard": "ディールごと（持ち越しなし）",
    "familia.option.tricks": "1ディールのトリック数",
    "familia.option.hand_size": "配る枚数",
    "familia.option.hand_adjustment": "手札調整（低いランクから抜く）",
    "familia.option.hand_jokers": "手札に加えるジョーカー（ワイルド）",
    "familia.option.pile_jokers": "絵札に加えるジョーカー",
  },
};

const SUIT_NAMES = {
  en: { S: "spades", H: "hearts", D: "diamonds", C: "clubs" },
  ja: { S: "スペード", H: "ハート", D: "ダイヤ", C: "クラブ" },
};

function suitText(suit, ctx) {
  if (!suit) return "";
  return `${SUIT_SYMBOL[suit]} ${(SUIT_NAMES[ctx.lang] || SUIT_NAMES.en)[suit]}`;
}

function suitSpan(suit, ctx) {
  return h("span", { style: { color: SUIT_RED[suit] ? "#b3261e" : "#1d1d1f", fontWeight: 600 } }, suitText(suit, ctx));
}

function cardName(code, ctx) {
  if (code === "X") return ctx.lang === "ja" ? "ジョーカー" : "joker";
  return `${SUIT_SYMBOL[code[0]]}${code.slice(1)}`;
}

function isTeamPlay(view) {
  return new Set(view.teams || []).size < (view.teams || []).length;
}

function teamLetter(team) {
  return String.fromCharCode(65 + team);
}

/** Facts joined by " · ", each kept on one line: a narrow seat box breaks only between them. */
function unbroken(parts) {
  return parts.map((text, i) => [i ? " · " : "", h("span", { style: { whiteSpace: "nowrap" } }, text)]);
}

function chip(text, extra = {}) {
  return h("span", { class: ["chip", extra.cls], "data-testid": extra.testid || null }, text);
}

/** Animate the judging steps once per new trick, not on every redraw. */
let lastAnimatedTrick = "";

function trickKey(view) {
  return `${view.hand_no}:${view.deal_no}:${view.tricks_played}`;
}

function pileBox(name, count, ctx, action) {
  return h("div", { class: ["fam-box", "fam-pile", `fam-pile-${name}`], "data-testid": `familia-pile-${name}` },
    h("h3", null, ctx.t(`${P}pile.${name}`)),
    count ? h("div", { class: "fam-back" }) : null,
    h("div", { class: "small" }, ctx.t(`${P}pile.count`, { n: count })),
    action ? h("button", { type: "button", class: "primary", "data-testid": `familia-choose-${name}`, onclick: () => ctx.send(action) },
      ctx.t(`${P}pile.turn`)) : null);
}

function stakeBox(view, ctx) {
  const trick = view.trick;
  if (!trick) return null;
  const lines = [];
  if (trick.face === "X") lines.push(ctx.t(`${P}no_lead`));
  else if (trick.mode === "lead") lines.push(h("span", null, ctx.t(`${P}led`, { suit: "" }), suitSpan(trick.face[0], ctx)));
  else {
    lines.push(h("span", { "data-testid": "familia-trump" }, ctx.t(`${P}trump`, { suit: "" }), suitSpan(trick.face[0], ctx)));
    if (trick.led_suit) lines.push(h("span", null, ctx.t(`${P}led`, { suit: "" }), suitSpan(trick.led_suit, ctx)));
  }
  return h("div", { class: "fam-box", "data-testid": "familia-stake" },
    h("h3", null, ctx.t(`${P}face`)),
    ctx.card(trick.face, {}),
    h("div", { class: "small", style: { display: "flex", flexDirection: "column" } }, lines));
}

function drawBox(view, ctx) {
  const pile = view.draw_pile || { count: 0, top: null };
  return h("div", { class: "fam-box", "data-testid": "familia-draw-pile" },
    h("h3", null, ctx.t(`${P}draw`)),
    pile.top ? ctx.card(pile.top, { size: "sm" }) : h("div", { class: "muted small" }, ctx.t(`${P}draw.empty`)),
    h("div", { class: "small" }, ctx.t(`${P}draw.count`, { n: pile.count })));
}

function battingNow(view, ctx) {
  const trick = view.trick;
  if (!trick) return null;
  const batting = trick.cards.filter((c) => c.batting);
  if (!batting.length) return null;
  return h("div", { class: "fam-box", "data-testid": "familia-batting-now" },
    h("h3", null, ctx.t(`${P}batting_now`)),
    h("div", { class: "fam-row" }, batting.map((c) => h("span", { class: "fam-batting", title: ctx.seatName(c.seat) },
      ctx.card(c.card, { size: "sm" })))));
}

function judgingBox(view, ctx) {
  const last = view.last_trick;
  if (!last || !last.steps) return null;
  const key = trickKey(view);
  const animate = key !== lastAnimatedTrick;
  lastAnimatedTrick = key;
  const stepItem = (content, index) => h("li", {
    class: animate ? "fam-step" : null,
    style: animate ? { animationDelay: `${index * 0.6}s` } : null,
  }, content);
  const items = last.steps.map((step, index) => stepItem([
    ctx.t(`${P}step.${step.kind}`), " ",
    h("span", { class: "card-row", style: { display: "inline-flex", gap: "2px" } },
      step.cards.map((c) => h("span", { class: "fam-batting", title: ctx.seatName(c.seat) }, ctx.card(c.card, { size: "sm" })))),
  ], index));
  const face = cardName(last.face, ctx);
  items.push(stepItem(last.void
    ? ctx.t(`${P}step.void`, { face })
    : ctx.t(`${P}step.winner`, { name: ctx.seatName(last.winner), face, card: cardName(last.winning_card, ctx) }), items.length));
  return h("div", { class: "fam-box", "data-testid": "familia-judging" },
    h("h3", null, ctx.t(`${P}judging`)),
    h("ol", { class: "fam-steps" }, items));
}

function wonBox(view, ctx) {
  const won = view.won || [];
  const discarded = view.discarded_faces || [];
  if (!won.some((cards) => cards.length) && !discarded.length) return null;
  return h("details", { class: "fam-box", "data-testid": "familia-won" },
    h("summary", null, ctx.t(`${P}won`)),
    h("ul", { class: "fam-won", style: { listStyle: "none", padding: 0, margin: 0 } },
      won.map((cards, seat) => cards.length
        ? h("li", { dataset: { seat: String(seat) } }, h("strong", null, ctx.seatName(seat)), cardRow(cards, "standard"))
        : null),
      discarded.length ? h("li", null, h("span", { class: "muted" }, ctx.t(`${P}discarded`)), cardRow(discarded, "standard")) : null));
}

function crestPicker(ctx) {
  const actions = ctx.legal.filter((a) => a.type === "choose" && a.crest);
  if (!actions.length) return null;
  return h("div", { class: "fam-box", "data-testid": "familia-crest" },
    h("h3", null, ctx.t(`${P}crest.choose`)),
    h("div", { class: "fam-row" }, actions.map((action) => h("button", {
      type: "button", "data-testid": `familia-crest-${action.crest}`, onclick: () => ctx.send(action),
    }, suitSpan(action.crest, ctx)))));
}

function infoChips(view, ctx) {
  const chips = [];
  if (view.deals_total > 1 && view.deal_no) chips.push(chip(ctx.t(`${P}deal`, { n: view.deal_no, total: view.deals_total })));
  if (view.deal_no) {
    const current = Math.min(view.tricks_played + (view.trick ? 1 : 0), view.tricks_per_deal) || 1;
    chips.push(chip(ctx.t(`${P}trick`, { n: current, total: view.tricks_per_deal })));
    chips.push(chip(ctx.t(`${P}mode.${view.mode}`), { cls: view.mode === "trump" ? "chip-hot" : "chip-cool", testid: "familia-mode" }));
  }
  if (view.batting_familia) chips.push(chip(ctx.t(`${P}batting_familia`), { cls: "chip-hot" }));
  if (view.batting_rule) chips.push(chip(ctx.t(`${P}rule.${view.batting_rule}`)));
  return chips.length ? h("div", { style: { display: "flex", flexWrap: "wrap", alignItems: "center" } }, chips) : null;
}

function standingsBox(view, ctx) {
  if (view.phase !== "match_over" || !view.standings) return null;
  const seats = view.standings.map((place, seat) => ({ place, seat })).sort((a, b) => a.place - b.place || a.seat - b.seat);
  return h("div", { class: "fam-box", "data-testid": "familia-standings" },
    h("h3", null, ctx.t(`${P}standings`)),
    h("ol", { style: { margin: 0, paddingLeft: "1.2rem" } }, seats.map(({ place, seat }) => h("li", { value: place },
      `${ctx.seatName(seat)} ${formatScore(view.scores[seat])}`))),
    h("p", { class: "help" }, ctx.t(`${P}tiebreak`)));
}

function roleCell(row, ctx) {
  const parts = [];
  for (const role of row.roles || []) {
    parts.push(h("div", { class: role.zeroed ? "fam-zeroed" : null, title: role.zeroed ? ctx.t(`${P}zeroed`) : null },
      `${ctx.t(`${P}kind.${role.kind}`)} ${role.cards.map((c) => cardName(c, ctx)).join(" ")} ${formatScore(role.zeroed ? 0 : role.points)}`));
  }
  return parts.length ? parts : ctx.t(`${P}none`);
}

function singlesCell(row, ctx) {
  const singles = row.singles || [];
  if (!singles.length) return ctx.t(`${P}none`);
  return h("span", null, singles.map((single, i) => h("span", {
    class: single.zeroed ? "fam-zeroed" : null, title: single.zeroed ? ctx.t(`${P}zeroed`) : null,
  }, `${i ? ", " : ""}${cardName(single.cards[0], ctx)} ${formatScore(single.zeroed ? 0 : single.points)}`)));
}

/** The table's standard when teams or roles are left blank (engine/games/familia/config.py
 * `default_teams_and_roles`): pairs at an even seat count, individual men at an odd one. */
function standardSeating(seats) {
  if (seats % 2 === 0) {
    const half = seats / 2;
    return { teams: Array.from({ length: seats }, (_, n) => n % half), roles: Array.from({ length: seats }, (_, n) => (n < half ? "M" : "F")) };
  }
  return { teams: Array.from({ length: seats }, (_, n) => n), roles: Array.from({ length: seats }, () => "M") };
}

/** The seating rules (config.py `_seating_problem`), cheap enough to check on every change:
 * at most two places round the table where the role changes, and no man and woman of one team
 * side by side. Returns null, `{kind: "blocks"}` or `{kind: "neighbours", a, b, team}`. */
export function seatingProblem(teams, roles) {
  const seats = roles.length;
  let changes = 0;
  for (let seat = 0; seat < seats; seat += 1) if (roles[seat] !== roles[(seat + 1) % seats]) changes += 1;
  if (changes > 2) return { kind: "blocks" };
  for (let seat = 0; seat < seats; seat += 1) {
    const next = (seat + 1) % seats;
    if (roles[seat] !== roles[next] && teams[seat] === teams[next]) return { kind: "neighbours", a: seat, b: next, team: teams[seat] };
  }
  return null;
}

/** The host's per-seat team and role pickers (the room's and the create form's options). */
function renderSeatingOptions(container, ctx) {
  const seats = ctx.seats;
  const standard = standardSeating(seats);
  const fits = (list) => Array.isArray(list) && list.length === seats;
  // null = blank = the standard for this seat count; a list once the host picks something
  const chosen = { teams: fits(ctx.options.teams) ? [...ctx.options.teams] : null, roles: fits(ctx.options.roles) ? [...ctx.options.roles] : null };
  const current = (name) => chosen[name] || standard[name];
  const problemLine = h("p", { class: "fam-seating-check", "data-testid": "familia-seating-check", "aria-live": "polite" });
  const seatLabel = (n) => `${ctx.t("common.seat", { n: n + 1 })}`;

  const check = () => {
    const rulesOn = ctx.currentOptions().seating_rules !== false;
    const problem = rulesOn ? seatingProblem(current("teams"), current("roles")) : null;
    problemLine.className = ["fam-seating-check", problem ? "error" : "ok"].join(" ");
    problemLine.dataset.problem = problem ? problem.kind : "";
    if (!rulesOn) problemLine.textContent = ctx.t(`${P}seating.off`);
    else if (!problem) problemLine.textContent = ctx.t(`${P}seating.ok`);
    else if (problem.kind === "blocks") problemLine.textContent = ctx.t(`${P}seating.blocks`);
    else problemLine.textContent = ctx.t(`${P}seating.neighbours`, { a: seatLabel(problem.a), b: seatLabel(problem.b), team: teamLetter(problem.team) });
  };
  const tags = {};
  const tag = (name) => {
    tags[name] = h("span", { class: ["tag", chosen[name] ? "fam-chosen" : null], "data-testid": `familia-${name}-state` },
      ctx.t(chosen[name] ? `${P}seating.chosen` : `${P}seating.standard`));
    return tags[name];
  };
  const pick = (name, seat, value) => {
    chosen[name] = [...current(name)];
    chosen[name][seat] = value;
    tags[name].replaceWith(tag(name));
    ctx.setOption(name, chosen[name]);
    if (reset) reset.disabled = false;
    check();
  };
  const pickers = [];
  const names = Array.from({ length: seats }, (_, seat) => ctx.seatName(seat) || "");
  const showNames = names.some(Boolean);
  const rows = Array.from({ length: seats }, (_, seat) => {
    const team = h("select", {
      disabled: ctx.disabled, "data-testid": `familia-team-${seat}`, "aria-label": `${seatLabel(seat)} ${ctx.t(`${P}seating.team`)}`,
      onchange: (event) => pick("teams", seat, Number(event.target.value)),
    }, Array.from({ length: seats }, (_, n) => h("option", { value: String(n), selected: current("teams")[seat] === n }, teamLetter(n))));
    const role = h("select", {
      disabled: ctx.disabled, "data-testid": `familia-role-${seat}`, "aria-label": `${seatLabel(seat)} ${ctx.t(`${P}seating.role`)}`,
      onchange: (event) => pick("roles", seat, event.target.value),
    }, ["M", "F"].map((value) => h("option", { value, selected: current("roles")[seat] === value }, ctx.t(value === "M" ? `${P}man` : `${P}woman`))));
    pickers.push(team, role);
    return h("tr", { dataset: { seat: String(seat) } },
      h("td", { class: "fam-seat-no" }, String(seat + 1)),
      showNames ? h("td", { class: "fam-seat-name" }, names[seat] || h("span", { class: "muted" }, "—")) : null,
      h("td", null, team),
      h("td", null, role));
  });
  const reset = ctx.disabled ? null : h("button", {
    type: "button", class: "small", "data-testid": "familia-seating-reset", disabled: !chosen.teams && !chosen.roles,
    onclick: () => {
      chosen.teams = null;
      chosen.roles = null;
      ctx.setOption("teams", null);
      ctx.setOption("roles", null);
      for (let seat = 0; seat < seats; seat += 1) {
        pickers[2 * seat].value = String(standard.teams[seat]);
        pickers[2 * seat + 1].value = standard.roles[seat];
      }
      tags.teams.replaceWith(tag("teams"));
      tags.roles.replaceWith(tag("roles"));
      reset.disabled = true;
      check();
    },
  }, ctx.t(`${P}seating.reset`));
  container.append(h("div", { class: "fam-seating", "data-testid": "familia-seating" },
    h("span", { class: "field-label" }, ctx.t(`${P}seating.title`)),
    h("table", { class: "fam-seating-table" },
      h("thead", null, h("tr", null,
        h("th", null, ctx.t(`${P}seating.seat`)),
        showNames ? h("th", null, ctx.t(`${P}seating.player`)) : null,
        h("th", null, ctx.t(`${P}seating.team`), " ", tag("teams")),
        h("th", null, ctx.t(`${P}seating.role`), " ", tag("roles")))),
      h("tbody", null, rows)),
    problemLine,
    h("p", { class: "help" },
      ctx.t(seats % 2 === 0 ? `${P}seating.standard.pairs` : `${P}seating.standard.single`, { n: seats, half: seats / 2 }), " ",
      ctx.t(`${P}seating.help`)),
    reset));
  check();
  ctx.onChange(check);
  return ["teams", "roles"];
}

export default {
  deck: "standard",
  direction: "cw",
  strings,

  /** The engine orders each hand already (spades, hearts, diamonds, clubs; strongest first; jokers last). */
  sortHand: (cards) => cards,

  renderOptions: renderSeatingOptions,

  /** A per-seat team or role list cannot outlive a change of seat count: back to the standard. */
  optionsForSeats(options, seats) {
    const stale = ["teams", "roles"].filter((name) => Array.isArray(options[name]) && options[name].length !== seats);
    if (!stale.length) return null;
    return { ...options, ...Object.fromEntries(stale.map((name) => [name, null])) };
  },

  buttonActions: (ctx) => ctx.legal.filter((a) => a.type !== "choose" && !(a.type === "play" && a.cards && a.cards.length === 1)),

  actionLabel(action, ctx) {
    if (action.pile) return ctx.t(`${P}pile.choose`, { pile: ctx.t(`${P}pile.${action.pile}`) });
    if (action.crest) return ctx.t(`${P}crest`, { suit: suitText(action.crest, ctx) });
    return action.type;
  },

  renderPanel(container, ctx) {
    const view = ctx.view;
    if (!view || !view.roles) return;
    const parts = [crestPicker(ctx), standingsBox(view, ctx), infoChips(view, ctx)];
    if (view.deal_no) {
      const pileActions = Object.fromEntries(ctx.legal.filter((a) => a.type === "choose" && a.pile).map((a) => [a.pile, a]));
      const choosing = Object.keys(pileActions).length > 0;
      const piles = view.piles || { black: 0, red: 0 };
      parts.push(
        choosing ? h("p", { class: "strong", style: { margin: "0.3rem 0" } }, ctx.t(`${P}pile.your_choice`)) : null,
        h("div", { class: "fam-row" },
          // While nobody here turns a face card, the piles are a line of counts, not two boxes.
          choosing ? pileBox("black", piles.black, ctx, pileActions.black) : null,
          choosing ? pileBox("red", piles.red, ctx, pileActions.red) : null,
          choosing ? null : h("div", { class: "fam-box fam-piles-line", "data-testid": "familia-piles" },
            ctx.t(`${P}pile.black`), " ", ctx.t(`${P}pile.count`, { n: piles.black }), " · ",
            ctx.t(`${P}pile.red`), " ", ctx.t(`${P}pile.count`, { n: piles.red })),
          stakeBox(view, ctx),
          drawBox(view, ctx),
          battingNow(view, ctx),
          judgingBox(view, ctx)),
        wonBox(view, ctx));
    }
    // the DOM's own append would print null as text: keep only real nodes
    container.append(...parts.filter(Boolean));
  },

  seatBadges(seat, ctx) {
    const view = ctx.view;
    if (!view || !view.roles) return null;
    const who = [ctx.t(view.roles[seat] === "M" ? `${P}man` : `${P}woman`)];
    if (isTeamPlay(view)) who.push(ctx.t(`${P}team`, { team: teamLetter(view.teams[seat]) }));
    if (view.crests && view.crests[seat]) who.push(ctx.t(`${P}crest`, { suit: SUIT_SYMBOL[view.crests[seat]] }));
    const known = view.known_cards && view.known_cards[seat];
    const line = { display: "block", whiteSpace: "normal" };
    return h("span", { class: "fam-badge", "data-testid": `familia-badge-${seat}`, style: line },
      h("span", { style: line }, unbroken(who)),
      view.won ? h("span", { style: line }, unbroken(ctx.t(`${P}badge.won`, { n: view.won[seat].length, t: view.tricks_won[seat] }).split(" · "))) : null,
      known && known.length ? h("span", { class: "muted fam-known", style: line },
        ctx.t(`${P}known`, { cards: known.map((c) => cardName(c, ctx)).join(" ") })) : null);
  },

  renderHandResult(container, ctx, hand) {
    const details = hand.details || {};
    const rows = details.players || [];
    const teams = details.teams || [];
    const teamPlay = teams.some((team) => team.seats.length > 1);
    container.append(h("div", { class: "table-scroll" }, h("table", { class: "score-table fam-result stacks", "data-testid": "familia-result" },
      h("thead", null, h("tr", null, ["player", "role", "won", "roles", "singles", "zero_sum", "misere", "points"]
        .map((key) => h("th", { class: ["zero_sum", "misere", "points"].includes(key) ? "num" : null }, ctx.t(`${P}col.${key}`))))),
      // Each cell names its column (data-label), so a phone can stack a row's cells under each other.
      h("tbody", null, rows.map((row) => h("tr", null,
        h("th", null, ctx.seatName(row.seat), teamPlay ? h("div", { class: "muted small" }, ctx.t(`${P}team`, { team: teamLetter(row.team) })) : null),
        h("td", { "data-label": ctx.t(`${P}col.role`) }, ctx.t(row.role === "M" ? `${P}man` : `${P}woman`),
          row.crest ? h("div", { class: "small" }, ctx.t(`${P}crest`, { suit: SUIT_SYMBOL[row.crest] })) : null),
        h("td", { "data-label": ctx.t(`${P}col.won`) }, row.won.length ? cardRow(row.won, "standard") : ctx.t(`${P}none`)),
        h("td", { "data-label": ctx.t(`${P}col.roles`) }, roleCell(row, ctx), row.forced ? h("div", { class: "muted small" }, ctx.t(`${P}forced`)) : null),
        h("td", { "data-label": ctx.t(`${P}col.singles`) }, singlesCell(row, ctx)),
        h("td", { class: "num", "data-label": ctx.t(`${P}col.zero_sum`) }, row.zero_sum_bonus ? formatScore(row.zero_sum_bonus) : "–"),
        h("td", { class: "num", "data-label": ctx.t(`${P}col.misere`) }, row.misere_bonus ? formatScore(row.misere_bonus) : "–"),
        h("td", { class: "num strong", "data-label": ctx.t(`${P}col.points`) }, formatScore(row.total))))))));
    const label = (key) => ctx.t(`${P}col.${key}`);
    container.append(h("div", { class: "table-scroll" }, h("table", { class: "score-table stacks", "data-testid": "familia-ranking" },
      h("thead", null, h("tr", null, ["place", "team", "points", "face_cards", "face_points"]
        .map((key) => h("th", { class: key === "team" ? null : "num" }, label(key))))),
      h("tbody", null, [...teams].sort((a, b) => a.place - b.place).map((team) => h("tr", null,
        h("td", { class: "num strong", "data-label": label("place") }, String(team.place)),
        h("td", { "data-label": label("team") }, team.seats.map((s) => ctx.seatName(s)).join(" + ")),
        h("td", { class: "num", "data-label": label("points") }, formatScore(team.points)),
        h("td", { class: "num", "data-label": label("face_cards") }, String(team.face_cards)),
        h("td", { class: "num", "data-label": label("face_points") }, String(team.face_points))))))),
    h("p", { class: "help" }, ctx.t(`${P}tiebreak`)));
  },
};
