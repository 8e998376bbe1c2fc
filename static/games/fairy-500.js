/**
 * Fairy Five Hundred (fairy-500): the table plugin.
 *
 * The panel follows the hand. While bidding it shows the auction and, on your turn, the bidding
 * table: every trick contract (6–10 tricks in each trump and no-trumps) and every misère kind with
 * its double and crazy declarations, each with its base points; bids that cannot beat the standing
 * one are greyed out. Then the contract and trump stay in view to the end, with the kitty's state,
 * the named lieutenant card(s) (marked with their holder once revealed), an open misère's hand face
 * up, and the tricks each seat has won. The declarer names a card from a picker and discards four
 * cards by selecting them in the hand. The hand result spells out the score: contract, tricks,
 * made or failed, slam and classical bonuses, named cards and multipliers, misère F bonuses, and
 * Ramsch's counted tricks, success bonus and F factors.
 */
import { h } from "../js/dom.js";
import { cardRow } from "../js/cards.js";
import { formatScore, genericHandHint, narrowScreen } from "../js/table.js";

const P = "fairy-500.";

const TRUMPS = ["S", "C", "D", "H", "NT"];
const KINDS = ["misere", "hand_misere", "open_misere", "open_hand_misere"];
const DECLARATIONS = [null, "double", "crazy"];
const SAME_COLOUR = { H: "D", D: "H", C: "S", S: "C" };
const FAIRY_ORDER = { H: 4, D: 3, C: 2, S: 1 };
const FACE_VALUE = { J: 20, C: 21, Q: 22, K: 23 };

const strings = {
  en: {
    [`${P}trump.S`]: "Magic Sword",
    [`${P}trump.C`]: "Sacred Tree",
    [`${P}trump.D`]: "Coins",
    [`${P}trump.H`]: "Holy Grail",
    [`${P}trump.NT`]: "No-trumps",
    [`${P}short.S`]: "Sword",
    [`${P}short.C`]: "Tree",
    [`${P}short.D`]: "Coins",
    [`${P}short.H`]: "Grail",
    [`${P}short.NT`]: "NT",
    [`${P}kind.misere`]: "Misère",
    [`${P}kind.hand_misere`]: "Hand misère",
    [`${P}kind.open_misere`]: "Open misère",
    [`${P}kind.open_hand_misere`]: "Open hand misère",
    [`${P}decl.none`]: "plain",
    [`${P}decl.double`]: "Double",
    [`${P}decl.crazy`]: "Crazy",
    [`${P}tricks`]: "Tricks",
    [`${P}misere_bids`]: "Misère bids",
    [`${P}decl.help`]: "Double (×2): you will hold some F when play starts. Crazy (×10): you will hold the Holy Grail F. Hand misères skip the kitty; open misères show your hand.",
    [`${P}pass`]: "Pass",
    [`${P}bidding`]: "Bidding",
    [`${P}your_bid`]: "Your bid (base points). Only bids worth more than the standing one are open; a pass is final.",
    [`${P}no_bids`]: "No bid yet. If everyone passes: {after}.",
    [`${P}after.ramsch`]: "Ramsch",
    [`${P}after.redeal`]: "a redeal",
    [`${P}after.ten_per_trick`]: "a 10-per-trick game",
    [`${P}standing`]: "Standing bid: {label} ({points}) by {name}",
    [`${P}contract`]: "{label} ({points}) — declarer {name}",
    [`${P}contract.ramsch`]: "Ramsch: everyone tries to lose tricks",
    [`${P}contract.ten_per_trick`]: "All passed: 10 points per trick",
    [`${P}mode.trump`]: "Trump: {suit} (all F's and the {jack} J are trumps)",
    [`${P}mode.notrump`]: "No-trumps: the four F's form their own top suit",
    [`${P}mode.misere`]: "No trump: the led suit's F is highest, every F stays in its suit",
    [`${P}kitty.down`]: "Kitty: {n} cards face down",
    [`${P}kitty.dead`]: "Kitty: dead (not used this hand)",
    [`${P}kitty.taken`]: "The declarer has taken the kitty",
    [`${P}partners`]: "Partners: {a} & {b}; {c} & {d}",
    [`${P}classical`]: "Classical rules",
    [`${P}named`]: "Lieutenant card(s)",
    [`${P}named.secret`]: "holder secret",
    [`${P}named.you`]: "you hold it: you are a lieutenant",
    [`${P}named.by`]: "held by {name}",
    [`${P}named.declarer`]: "the declarer's own card",
    [`${P}call.help`]: "Name a lieutenant card ({left} to name). Its holder plays on your side{secret}.",
    [`${P}call.secret`]: " and stays secret until the card is played",
    [`${P}call.classical`]: " (classical: cards you have seen cannot be named)",
    [`${P}call.waiting`]: "The declarer is naming the lieutenant card(s).",
    [`${P}call.own`]: "Name one of your own cards (no lieutenant for it: your score becomes ×1.5, or ×2 when both named cards are yours)",
    [`${P}discard.help`]: "Select four cards to put in the discard ({n}/4 selected).",
    [`${P}discard.button`]: "Discard these four",
    [`${P}discard.waiting`]: "The declarer is exchanging with the kitty.",
    [`${P}discards`]: "Your discards",
    [`${P}open_hand`]: "Open misère: {name}'s hand",
    [`${P}tricks_won`]: "Tricks won",
    [`${P}fairy_tricks`]: "{n} with an F",
    [`${P}badge.declarer`]: "Declarer",
    [`${P}badge.lieutenant`]: "Lieutenant",
    [`${P}badge.partner`]: "Partner",
    [`${P}badge.tricks`]: "tricks {n}",
    [`${P}badge.pass`]: "pass",
    [`${P}redeals`]: "Redeals: {n}",
    [`${P}r.contract`]: "Contract",
    [`${P}r.side`]: "Declarer's side",
    [`${P}r.side_tricks`]: "Side's tricks / bid",
    [`${P}r.made`]: "made",
    [`${P}r.failed`]: "failed",
    [`${P}r.base`]: "Base points",
    [`${P}r.slam`]: "Slam bonus",
    [`${P}r.classical`]: "Classical: all ten tricks score at least 250",
    [`${P}r.total`]: "T (the side's result)",
    [`${P}r.named`]: "Named cards",
    [`${P}r.place.lieutenant`]: "with {name} (lieutenant, T/2 each)",
    [`${P}r.place.declarer_hand`]: "in the declarer's hand",
    [`${P}r.place.discards`]: "in the declarer's discards",
    [`${P}r.factor`]: "Declarer's multiplier",
    [`${P}r.defenders`]: "Defenders score 10 per trick they took.",
    [`${P}r.partner`]: "The partner scores half of T, like a lieutenant.",
    [`${P}r.declared`]: "Declared points",
    [`${P}r.declarer_tricks`]: "Tricks taken by the declarer",
    [`${P}r.declaration_met`]: "Declared F in the play hand",
    [`${P}r.yes`]: "yes",
    [`${P}r.no`]: "no",
    [`${P}r.fairies`]: "F's in the play hand (weakest first)",
    [`${P}r.bonus`]: "F bonus",
    [`${P}r.none`]: "none",
    [`${P}r.misere_defenders`]: "Every other seat scores 10 per trick the declarer took.",
    [`${P}r.seat`]: "Player",
    [`${P}r.tricks`]: "Tricks",
    [`${P}r.f_tricks`]: "Won with an F",
    [`${P}r.counted`]: "Counted",
    [`${P}r.factor_col`]: "F factor",
    [`${P}r.score`]: "Score",
    [`${P}r.ramsch_rule`]: "Counted tricks cost 50 each. Players with none share the success bonus {bonus} ({n} succeeded), times ×2 per F and ×10 for the Holy Grail F they were dealt.",
    [`${P}r.ten_rule`]: "Every trick is worth 10 points to its winner.",
    [`${P}option.hands.default`]: "play until someone reaches +500 or −500",
    [`${P}option.partnership`]: "Partnership (4 players: opposite seats are partners)",
    [`${P}option.classical`]: "Classical rules (250 for all ten tricks, naming after the kitty, no Ramsch)",
    [`${P}option.classical_all_pass`]: "Classical: when everyone passes",
    [`${P}option.classical_all_pass.redeal`]: "redeal",
    [`${P}option.classical_all_pass.ten_per_trick`]: "play for 10 points a trick",
  },
  ja: {
    [`${P}trump.S`]: "魔剣",
    [`${P}trump.C`]: "聖樹",
    [`${P}trump.D`]: "金貨",
    [`${P}trump.H`]: "聖杯",
    [`${P}trump.NT`]: "ノートランプ",
    [`${P}short.S`]: "魔剣",
    [`${P}short.C`]: "聖樹",
    [`${P}short.D`]: "金貨",
    [`${P}short.H`]: "聖杯",
    [`${P}short.NT`]: "NT",
    [`${P}kind.misere`]: "ミゼール",
    [`${P}kind.hand_misere`]: "ハンドミゼール",
    [`${P}kind.open_misere`]: "オープンミゼール",
    [`${P}kind.open_hand_misere`]: "オープンハンドミゼール",
    [`${P}decl.none`]: "なし",
    [`${P}decl.double`]: "ダブル",
    [`${P}decl.crazy`]: "クレージー",
    [`${P}tricks`]: "トリック",
    [`${P}misere_bids`]: "ミゼールのビッド",
    [`${P}decl.help`]: "ダブル（×2）：プレー開始時に何かの F を持つ約束。クレージー（×10）：聖杯 F を持つ約束。ハンドミゼールはキティを使わず、オープンミゼールは手札を公開します。",
    [`${P}pass`]: "パス",
    [`${P}bidding`]: "ビッド",
    [`${P}your_bid`]: "あなたのビッド（基本点）。現在のビッドより高いものだけ選べます。パスしたら以後ビッドできません。",
    [`${P}no_bids`]: "まだビッドはありません。全員パスなら{after}。",
    [`${P}after.ramsch`]: "ラムシュ",
    [`${P}after.redeal`]: "配り直し",
    [`${P}after.ten_per_trick`]: "1トリック10点のゲーム",
    [`${P}standing`]: "現在のビッド：{label}（{points}点）{name}",
    [`${P}contract`]: "{label}（{points}点）デクレアラー：{name}",
    [`${P}contract.ramsch`]: "ラムシュ：全員がトリックを取らないように戦います",
    [`${P}contract.ten_per_trick`]: "全員パス：1トリック10点",
    [`${P}mode.trump`]: "切札：{suit}（F 4枚と{jack}の J も切札）",
    [`${P}mode.notrump`]: "ノートランプ：F 4枚はどのスートにも属さない最強のスート",
    [`${P}mode.misere`]: "切札なし：台札の F が最強、F は見た目のスートのまま",
    [`${P}kitty.down`]: "キティ：{n}枚伏せてあります",
    [`${P}kitty.dead`]: "キティ：死札（このハンドでは使いません）",
    [`${P}kitty.taken`]: "デクレアラーがキティを取りました",
    [`${P}partners`]: "ペア：{a} と {b}、{c} と {d}",
    [`${P}classical`]: "クラシカルルール",
    [`${P}named`]: "副官指名札",
    [`${P}named.secret`]: "持ち主は秘密",
    [`${P}named.you`]: "あなたが持っています：あなたは副官です",
    [`${P}named.by`]: "{name} が持っています",
    [`${P}named.declarer`]: "デクレアラー自身の札",
    [`${P}call.help`]: "副官指名札を選んでください（残り{left}枚）。持ち主があなたの味方になります{secret}。",
    [`${P}call.secret`]: "（そのカードが出るまで秘密）",
    [`${P}call.classical`]: "（クラシカル：見たカードは指名できません）",
    [`${P}call.waiting`]: "デクレアラーが副官指名札を選んでいます。",
    [`${P}call.own`]: "自分の手札のカードを指名する（その札の副官はおらず、得失点が ×1.5、2枚とも自分の札なら ×2）",
    [`${P}discard.help`]: "捨てるカードを4枚選んでください（{n}/4 枚選択中）。",
    [`${P}discard.button`]: "この4枚を捨てる",
    [`${P}discard.waiting`]: "デクレアラーがキティと交換しています。",
    [`${P}discards`]: "あなたの捨て札",
    [`${P}open_hand`]: "オープンミゼール：{name} の手札",
    [`${P}tricks_won`]: "取ったトリック",
    [`${P}fairy_tricks`]: "うち F で{n}",
    [`${P}badge.declarer`]: "デクレアラー",
    [`${P}badge.lieutenant`]: "副官",
    [`${P}badge.partner`]: "パートナー",
    [`${P}badge.tricks`]: "{n}トリック",
    [`${P}badge.pass`]: "パス",
    [`${P}redeals`]: "配り直し：{n}回",
    [`${P}r.contract`]: "コントラクト",
    [`${P}r.side`]: "デクレアラー側",
    [`${P}r.side_tricks`]: "デクレアラー側のトリック / ビッド",
    [`${P}r.made`]: "成功",
    [`${P}r.failed`]: "失敗",
    [`${P}r.base`]: "基本点",
    [`${P}r.slam`]: "スラムボーナス",
    [`${P}r.classical`]: "クラシカル：全勝は最低250点",
    [`${P}r.total`]: "T（デクレアラー側の得失点）",
    [`${P}r.named`]: "指名札",
    [`${P}r.place.lieutenant`]: "{name}（副官、1枚につき T の半分）",
    [`${P}r.place.declarer_hand`]: "デクレアラーの手札",
    [`${P}r.place.discards`]: "デクレアラーの捨て札",
    [`${P}r.factor`]: "デクレアラーの倍率",
    [`${P}r.defenders`]: "ディフェンダーは自分の取ったトリック1つにつき10点。",
    [`${P}r.partner`]: "パートナーは副官と同じく T の半分。",
    [`${P}r.declared`]: "宣言の点数",
    [`${P}r.declarer_tricks`]: "デクレアラーが取ったトリック",
    [`${P}r.declaration_met`]: "宣言した F がプレー時の手札にある",
    [`${P}r.yes`]: "はい",
    [`${P}r.no`]: "いいえ",
    [`${P}r.fairies`]: "プレー時の手札の F（弱い順）",
    [`${P}r.bonus`]: "F ボーナス",
    [`${P}r.none`]: "なし",
    [`${P}r.misere_defenders`]: "他の全員は、デクレアラーが取ったトリック1つにつき10点。",
    [`${P}r.seat`]: "プレイヤー",
    [`${P}r.tricks`]: "トリック",
    [`${P}r.f_tricks`]: "F で勝った",
    [`${P}r.counted`]: "数える",
    [`${P}r.factor_col`]: "F 倍率",
    [`${P}r.score`]: "得点",
    [`${P}r.ramsch_rule`]: "数えるトリック1つにつき −50点。0 の人は成功ボーナス {bonus} 点（成功 {n} 人）を得て、配られた F 1枚ごとに ×2、聖杯 F は ×10。",
    [`${P}r.ten_rule`]: "トリック1つにつき、勝った人に10点。",
    [`${P}option.hands.default`]: "誰かが +500 点か −500 点に達するまで",
    [`${P}option.partnership`]: "ペア戦（4人：向かいの席がパートナー）",
    [`${P}option.classical`]: "クラシカルルール（全勝は250点保証、キティの後に指名、ラムシュなし）",
    [`${P}option.classical_all_pass`]: "クラシカル：全員パスのとき",
    [`${P}option.classical_all_pass.redeal`]: "配り直し",
    [`${P}option.classical_all_pass.ten_per_trick`]: "1トリック10点のゲーム",
  },
};

function trickBidLabel(ctx, tricks, trump) {
  return `${tricks} ${ctx.t(`${P}trump.${trump}`)}`;
}

function bidLabel(ctx, entry) {
  if (!entry) return "";
  return entry.label ? (ctx.lang === "ja" ? entry.label.ja : entry.label.en) : entry.bid;
}

function code(kind, declaration) {
  return declaration ? `${declaration}_${kind}` : kind;
}

function plainValue(card) {
  const rank = card.slice(1);
  if (rank === "F") return 99;
  return FACE_VALUE[rank] ?? Number(rank);
}

/** Power of a card as a trump (or -1), the same order as the engine's trump ranking. */
function trumpPower(card, trump) {
  const suit = card[0];
  const rank = card.slice(1);
  if (rank === "F") return 200 + FAIRY_ORDER[suit];
  if (card === `${trump}J`) return 190;
  if (card === `${SAME_COLOUR[trump]}J`) return 189;
  if (suit === trump) return 100 + plainValue(card);
  return -1;
}

function isDeclarerView(ctx) {
  const view = ctx.view;
  return view.declarer !== null && view.declarer !== undefined && view.seat === view.declarer;
}

function chip(text, hot, testid) {
  return h("span", { class: ["chip", hot ? "chip-hot" : "chip-cool"], "data-testid": testid || null }, text);
}

function infoChips(ctx) {
  const view = ctx.view;
  const chips = [];
  const contract = view.contract;
  if (contract) {
    let text;
    if (contract.kind === "ramsch") text = ctx.t(`${P}contract.ramsch`);
    else if (contract.kind === "ten_per_trick") text = ctx.t(`${P}contract.ten_per_trick`);
    else text = ctx.t(`${P}contract`, { label: bidLabel(ctx, contract), points: contract.points, name: ctx.seatName(contract.declarer) });
    chips.push(chip(text, true, "f5-contract"));
    if (view.play_mode === "trump" || (contract.kind === "contract" && contract.trump !== "NT")) {
      chips.push(chip(ctx.t(`${P}mode.trump`, {
        suit: ctx.t(`${P}trump.${contract.trump}`), jack: ctx.t(`${P}trump.${SAME_COLOUR[contract.trump]}`),
      }), false, "f5-trump"));
    } else if (contract.kind === "contract" || contract.kind === "ten_per_trick") {
      chips.push(chip(ctx.t(`${P}mode.notrump`), false, "f5-trump"));
    } else {
      chips.push(chip(ctx.t(`${P}mode.misere`), false, "f5-trump"));
    }
  }
  if (view.phase !== "deal" && view.phase !== "match_over") {
    if (view.kitty_dead) chips.push(chip(ctx.t(`${P}kitty.dead`), false));
    else if (view.kitty_count) chips.push(chip(ctx.t(`${P}kitty.down`, { n: view.kitty_count }), false));
    else if (view.declarer !== null && view.declarer !== undefined) chips.push(chip(ctx.t(`${P}kitty.taken`), false));
  }
  if (view.partners) {
    const [[a, b], [c, d]] = view.partners;
    chips.push(chip(ctx.t(`${P}partners`, { a: ctx.seatName(a), b: ctx.seatName(b), c: ctx.seatName(c), d: ctx.seatName(d) }), false));
  }
  if (view.options && view.options.classical) chips.push(chip(ctx.t(`${P}classical`), false));
  if (view.redeals) chips.push(chip(ctx.t(`${P}redeals`, { n: view.redeals }), false));
  return chips.length ? h("div", { class: "f5-info", style: { display: "flex", flexWrap: "wrap", alignItems: "center" } }, chips) : null;
}

function auctionPanel(ctx) {
  const view = ctx.view;
  const rows = (view.auction || []).map((entry) => h("li", { dataset: { seat: String(entry.seat) } },
    h("strong", null, ctx.seatName(entry.seat)), ": ",
    entry.bid ? `${bidLabel(ctx, entry)} (${entry.points})` : ctx.t(`${P}pass`)));
  const after = view.options && view.options.classical ? view.options.classical_all_pass : "ramsch";
  return h("div", { class: "f5-auction", "data-testid": "f5-auction" },
    h("strong", null, ctx.t(`${P}bidding`)),
    // While this person bids, the seat badges show every bid: the list would only push the grid down.
    rows.length && ctx.isMyTurn
      ? null
      : rows.length
      ? h("ol", { style: { margin: "0.2rem 0", paddingLeft: "1.4rem" } }, rows)
      : h("p", { class: "muted" }, ctx.t(`${P}no_bids`, { after: ctx.t(`${P}after.${after}`) })),
    // While this person bids, the status line above the felt already names the standing bid.
    view.standing_bid && !ctx.isMyTurn
      ? h("p", { "data-testid": "f5-standing" }, ctx.t(`${P}standing`, {
        label: bidLabel(ctx, view.standing_bid), points: view.standing_bid.points, name: ctx.seatName(view.standing_bid.seat),
      }))
      : null);
}

function bidButton(ctx, action, text) {
  return h("button", {
    type: "button",
    class: ["f5-bid", action && "primary"],
    disabled: !action,
    "data-testid": `f5-bid-${text.code}`,
    style: { minWidth: "2.75rem", padding: "0 0.2rem", fontSize: "0.8rem" },
    onclick: action ? () => ctx.send(action) : null,
  }, String(text.points));
}

/** The bidding table: trick contracts by tricks × trump, misères by kind × declaration. */
function biddingTable(ctx) {
  const legal = new Map(ctx.legal.filter((a) => a.type === "bid").map((a) => [a.bid, a]));
  const players = ctx.view.players;
  const bracket = Math.floor((players - 3) / 2);
  const misereBase = { misere: [250, 150, 50], hand_misere: [350, 250, 150], open_misere: [450, 350, 250], open_hand_misere: [550, 450, 350] };
  const factor = { null: 1, double: 2, crazy: 10 };
  // Rows where nothing can be bid any more (all below the standing bid) are left out.
  const open = [6, 7, 8, 9, 10].filter((tricks) => TRUMPS.some((trump) => legal.has(`${tricks}${trump}`)));
  const trickRows = open.map((tricks) => h("tr", null,
    h("th", null, String(tricks)),
    TRUMPS.map((trump) => {
      const bid = `${tricks}${trump}`;
      const points = 40 + 20 * TRUMPS.indexOf(trump) + 100 * (tricks - 6);
      return h("td", { title: trickBidLabel(ctx, tricks, trump) }, bidButton(ctx, legal.get(bid), { code: bid, points }));
    })));
  const misereRows = KINDS.map((kind) => h("tr", null,
    h("th", null, ctx.t(`${P}kind.${kind}`)),
    DECLARATIONS.map((declaration) => {
      const bid = code(kind, declaration);
      const points = misereBase[kind][bracket] * factor[declaration];
      return h("td", null, bidButton(ctx, legal.get(bid), { code: bid, points }));
    })));
  return h("div", { class: "f5-bidding", "data-testid": "f5-bidding" },
    h("p", { class: "f5-help f5-your-bid" }, ctx.t(`${P}your_bid`)),
    open.length ? h("div", { class: "table-scroll" }, h("table", { class: "score-table f5-bid-table" },
      h("thead", null, h("tr", null, h("th", null, ctx.t(`${P}tricks`)),
        TRUMPS.map((trump) => h("th", { title: ctx.t(`${P}trump.${trump}`) }, ctx.t(`${P}short.${trump}`))))),
      h("tbody", null, trickRows))) : null,
    misereFold(ctx, [
      h("div", { class: "table-scroll" }, h("table", { class: "score-table f5-misere-table" },
        // The corner cell heads nothing: a plain cell, so screen readers announce no empty header.
        h("thead", null, h("tr", null, h("td", null), DECLARATIONS.map((d) => h("th", null, ctx.t(`${P}decl.${d || "none"}`))))),
        h("tbody", null, misereRows))),
      h("p", { class: "muted f5-help" }, ctx.t(`${P}decl.help`)),
    ]));
}

/** Whether the person opened the misère bids on a phone, for the hand it was opened in: the
 * table is drawn again at every message, and the fold stays as the person left it. */
let misereOpen = { hand: null, open: false };

/** The misère bids: in the open on a wide screen; on a phone folded under a summary, so that the
 * trick contracts' grid and the hand fit one screen (every bid button a person can press is in
 * view; one tap opens the misères). */
function misereFold(ctx, content) {
  if (!narrowScreen()) return content;
  const hand = `${ctx.view.hand_no}`;
  return h("details", {
    class: "f5-misere",
    "data-testid": "f5-misere",
    open: misereOpen.hand === hand && misereOpen.open,
    ontoggle: (event) => {
      const fold = event.currentTarget;
      misereOpen = { hand, open: fold.open };
      // Opened: bring the misères into the panel's view (the panel scrolls on a phone).
      if (fold.open) fold.scrollIntoView({ block: "nearest" });
    },
  }, h("summary", null, ctx.t(`${P}misere_bids`)), content);
}

function namedPanel(ctx) {
  const view = ctx.view;
  if (!view.named || !view.named.length) return null;
  const hand = new Set(view.hand || []);
  return h("div", { class: "f5-named", "data-testid": "f5-named" },
    h("strong", null, `${ctx.t(`${P}named`)}: `),
    view.named.map((entry) => {
      let status;
      if (entry.seat !== null && entry.seat !== undefined) {
        status = entry.seat === view.declarer ? ctx.t(`${P}named.declarer`) : ctx.t(`${P}named.by`, { name: ctx.seatName(entry.seat) });
      } else if (hand.has(entry.card) && view.seat !== view.declarer) {
        status = ctx.t(`${P}named.you`);
      } else {
        status = ctx.t(`${P}named.secret`);
      }
      return h("span", { class: "f5-named-card", dataset: { card: entry.card }, style: { display: "inline-flex", alignItems: "center", gap: "0.3rem", marginRight: "0.8rem" } },
        ctx.card(entry.card, { size: "sm" }), status);
    }));
}

function callPicker(ctx) {
  const view = ctx.view;
  const own = new Set(view.hand || []);
  const callable = ctx.legal.filter((a) => a.type === "call");
  const rows = (actions) => {
    const bySuit = { H: [], D: [], C: [], S: [] };
    for (const action of actions) bySuit[action.card[0]].push(action);
    // One row per suit, however narrow the panel: its cards close up as a fan (style.css,
    // `.f5-call-row`) rather than leave one or two alone on a line of their own.
    return Object.values(bySuit).filter((list) => list.length).map((list) => h("div", { class: ["card-row", "f5-call-row", !narrowScreen() && "fan-row"], style: `--per-row: ${list.length}` },
      list
        .sort((a, b) => plainValue(b.card) - plainValue(a.card))
        .map((action) => ctx.card(action.card, { size: "sm", state: "legal", onClick: () => ctx.send(action) }))));
  };
  const others = callable.filter((a) => !own.has(a.card));
  const mine = callable.filter((a) => own.has(a.card));
  const left = view.call_count - (view.named || []).length;
  const secret = view.options && view.options.classical ? ctx.t(`${P}call.classical`) : ctx.t(`${P}call.secret`);
  return h("div", { class: "f5-call", "data-testid": "f5-call" },
    h("p", null, ctx.t(`${P}call.help`, { left, secret })),
    rows(others),
    mine.length
      ? h("details", { class: "f5-call-own" },
        h("summary", null, ctx.t(`${P}call.own`)),
        rows(mine))
      : null);
}

function discardControls(ctx) {
  const selected = ctx.selected;
  const wanted = [...selected].sort().join(",");
  const action = selected.length === 4
    ? ctx.legal.find((a) => a.type === "discard" && [...a.cards].sort().join(",") === wanted)
    : null;
  return h("div", { class: "f5-discard", "data-testid": "f5-discard" },
    h("p", null, ctx.t(`${P}discard.help`, { n: selected.length })),
    h("button", {
      type: "button", class: "primary", disabled: !action, "data-testid": "f5-discard-button",
      onclick: action ? () => ctx.send(action) : null,
    }, ctx.t(`${P}discard.button`)));
}

function tricksPanel(ctx) {
  const view = ctx.view;
  const items = (view.tricks_won || []).map((n, seat) => h("li", { dataset: { seat: String(seat) } },
    `${ctx.seatName(seat)}: ${n}`,
    view.contract && view.contract.kind === "ramsch" && view.fairy_tricks[seat]
      ? ` (${ctx.t(`${P}fairy_tricks`, { n: view.fairy_tricks[seat] })})` : ""));
  return h("div", { class: "f5-tricks", "data-testid": "f5-tricks" },
    h("strong", null, `${ctx.t(`${P}tricks_won`)}: `),
    h("ul", { style: { display: "inline", listStyle: "none", padding: 0, margin: 0 } },
      items.map((item) => {
        item.style.display = "inline";
        item.style.marginRight = "0.8rem";
        return item;
      })));
}

export default {
  deck: "extarot",
  direction: "cw",
  strings,

  /** Trumps first in trump order once a trump contract is set; otherwise the engine's order
   * (grouped by suit, strongest first). */
  sortHand(cards, view) {
    const contract = view && view.contract;
    if (!contract || contract.kind !== "contract" || !contract.trump || contract.trump === "NT") return cards;
    const trumps = cards.filter((c) => trumpPower(c, contract.trump) >= 0).sort((a, b) => trumpPower(b, contract.trump) - trumpPower(a, contract.trump));
    return [...trumps, ...cards.filter((c) => trumpPower(c, contract.trump) < 0)];
  },

  cardState(card, ctx) {
    const phase = ctx.view.phase;
    if (phase === "discard") {
      if (!ctx.isMyTurn) return "";
      return ctx.selected.includes(card) ? "selected" : "legal";
    }
    if (phase !== "play" || !ctx.isMyTurn) return "";
    return ctx.legal.some((a) => a.type === "play" && a.cards[0] === card) ? "legal" : "disabled";
  },

  /** Clicks play a card only in the play phase; that is when the usual "click to play" hint fits. */
  handHint(ctx) {
    return ctx.view.phase === "play" ? genericHandHint(ctx) : null;
  },

  onCardClick(card, ctx) {
    if (ctx.view.phase !== "discard") return false;
    // Select, change freely, then confirm: with four chosen, a new card takes the last one's place.
    if (ctx.selected.includes(card)) ctx.setSelected(ctx.selected.filter((c) => c !== card));
    else ctx.setSelected([...ctx.selected.slice(0, 3), card]);
    return true;
  },

  /** Only "pass" is a button under the hand; bids, naming and the discard live in the panel. */
  buttonActions(ctx) {
    return ctx.legal.filter((a) => a.type === "pass");
  },

  actionLabel(action, ctx) {
    if (action.type === "pass") return ctx.t(`${P}pass`);
    return action.type;
  },

  renderPanel(container, ctx) {
    const view = ctx.view;
    if (!view) return;
    const panel = h("div", { class: "f5-panel", "data-testid": "f5-panel", dataset: { phase: view.phase } });
    const chips = infoChips(ctx);
    if (chips) panel.append(chips);
    if (view.phase === "bid") {
      panel.append(auctionPanel(ctx));
      if (ctx.isMyTurn) panel.append(biddingTable(ctx));
    }
    const named = namedPanel(ctx);
    if (named) panel.append(named);
    if (view.phase === "call") {
      panel.append(ctx.isMyTurn ? callPicker(ctx) : h("p", { class: "muted" }, ctx.t(`${P}call.waiting`)));
    }
    if (view.phase === "discard") {
      panel.append(ctx.isMyTurn ? discardControls(ctx) : h("p", { class: "muted" }, ctx.t(`${P}discard.waiting`)));
    }
    if (isDeclarerView(ctx) && view.discards && view.discards.length) {
      panel.append(h("div", { class: "f5-discards", "data-testid": "f5-discards" },
        h("strong", null, ctx.t(`${P}discards`)), cardRow(view.discards, "extarot")));
    }
    if (view.open_hand) {
      panel.append(h("div", { class: "f5-open-hand", "data-testid": "f5-open-hand" },
        h("strong", null, ctx.t(`${P}open_hand`, { name: ctx.seatName(view.open_hand.seat) })),
        cardRow(ctx.view.open_hand.cards, "extarot")));
    }
    if (view.phase === "play") panel.append(tricksPanel(ctx));
    if (panel.childNodes.length) container.append(panel);
  },

  seatBadges(seat, ctx) {
    const view = ctx.view;
    if (!view || view.phase === "deal" || view.phase === "match_over") return null;
    const parts = [];
    if (view.phase === "bid") {
      const mine = (view.auction || []).filter((entry) => entry.seat === seat);
      const last = mine[mine.length - 1];
      if (last) parts.push(last.bid ? `${bidLabel(ctx, last)} (${last.points})` : ctx.t(`${P}badge.pass`));
    } else {
      if (seat === view.declarer) parts.push(ctx.t(`${P}badge.declarer`));
      const lieutenant = (view.named || []).some((entry) => entry.seat === seat && seat !== view.declarer);
      if (lieutenant) parts.push(ctx.t(`${P}badge.lieutenant`));
      if (view.partners && view.declarer !== null && view.contract && view.contract.kind === "contract"
        && seat !== view.declarer && view.partners.some((pair) => pair.includes(seat) && pair.includes(view.declarer))) {
        parts.push(ctx.t(`${P}badge.partner`));
      }
      if (view.phase === "play") parts.push(ctx.t(`${P}badge.tricks`, { n: view.tricks_won[seat] }));
    }
    return parts.length ? h("span", { class: "f5-badge", dataset: { seat: String(seat) } }, parts.join(" · ")) : null;
  },

  renderHandResult(container, ctx, hand) {
    const d = hand.details || {};
    const contract = d.contract || {};
    const rows = [];
    const row = (key, value, testid) => rows.push(h("tr", testid ? { "data-testid": testid } : null,
      h("th", { style: { whiteSpace: "normal" } }, ctx.t(key)), h("td", { style: { whiteSpace: "normal" } }, value)));
    const notes = [];
    if (d.kind === "contract") {
      row(`${P}r.contract`, `${ctx.seatName(d.declarer)}: ${bidLabel(ctx, contract)}`, "f5-r-contract");
      row(`${P}r.side`, d.side.map((s) => ctx.seatName(s)).join(", "));
      row(`${P}r.side_tricks`, `${d.side_tricks} / ${d.bid_tricks} — ${ctx.t(d.made ? `${P}r.made` : `${P}r.failed`)}`, "f5-r-tricks");
      row(`${P}r.base`, d.made ? formatScore(d.points) : formatScore(-d.points));
      if (d.slam_bonus) row(`${P}r.slam`, formatScore(d.slam_bonus));
      if (d.classical_bonus) row(`${P}r.classical`, formatScore(d.classical_bonus));
      row(`${P}r.total`, formatScore(d.total), "f5-r-total");
      if (d.named && d.named.length) {
        row(`${P}r.named`, h("span", null, d.named.map((entry) => h("span", { style: { display: "inline-flex", alignItems: "center", gap: "0.3rem", marginRight: "0.6rem" } },
          ctx.card(entry.card, { size: "sm" }),
          ctx.t(`${P}r.place.${entry.place}`, { name: ctx.seatName(entry.holder) })))));
        row(`${P}r.factor`, `×${d.declarer_factor}`);
      }
      if (d.partner !== null && d.partner !== undefined) notes.push(ctx.t(`${P}r.partner`));
      notes.push(ctx.t(`${P}r.defenders`));
    } else if (d.kind === "misere") {
      row(`${P}r.contract`, `${ctx.seatName(d.declarer)}: ${bidLabel(ctx, contract)}`, "f5-r-contract");
      row(`${P}r.declared`, d.declaration ? `${d.kind_points} × ${d.declaration === "crazy" ? 10 : 2} = ${d.declared_points}` : String(d.declared_points));
      row(`${P}r.declarer_tricks`, `${d.declarer_tricks} — ${ctx.t(d.made ? `${P}r.made` : `${P}r.failed`)}`, "f5-r-tricks");
      if (d.declaration) row(`${P}r.declaration_met`, ctx.t(d.declaration_met ? `${P}r.yes` : `${P}r.no`));
      row(`${P}r.fairies`, d.play_fairies && d.play_fairies.length ? cardRow(d.play_fairies, "extarot") : ctx.t(`${P}r.none`));
      if (d.made) {
        const steps = (d.bonus_steps || []).map((step) => `${step.card} ×${step.factor}`);
        row(`${P}r.bonus`, steps.length ? `${steps.join(" · ")} = ×${d.bonus_factor}` : ctx.t(`${P}r.none`));
      }
      notes.push(ctx.t(`${P}r.misere_defenders`));
    } else if (d.kind === "ramsch") {
      row(`${P}r.contract`, ctx.t(`${P}contract.ramsch`), "f5-r-contract");
      const table = h("table", { class: "score-table f5-ramsch" },
        h("thead", null, h("tr", null, [`${P}r.seat`, `${P}r.tricks`, `${P}r.f_tricks`, `${P}r.counted`, `${P}r.factor_col`, `${P}r.score`]
          .map((key) => h("th", null, ctx.t(key))))),
        h("tbody", null, hand.scores.map((score, seat) => h("tr", null,
          h("th", null, ctx.seatName(seat)),
          h("td", { class: "num" }, String(d.tricks[seat])),
          h("td", { class: "num" }, String(d.fairy_tricks[seat])),
          h("td", { class: "num" }, String(d.counted_tricks[seat])),
          h("td", { class: "num" }, d.counted_tricks[seat] ? "" : `×${d.factors[seat]}`),
          h("td", { class: "num strong" }, formatScore(score))))));
      rows.push(h("tr", null, h("td", { colspan: "2" }, h("div", { class: "table-scroll" }, table))));
      notes.push(ctx.t(`${P}r.ramsch_rule`, { bonus: d.success_bonus, n: d.successful.length }));
    } else if (d.kind === "ten_per_trick") {
      row(`${P}r.contract`, ctx.t(`${P}contract.ten_per_trick`), "f5-r-contract");
      row(`${P}r.tricks`, d.tricks.map((n, seat) => `${ctx.seatName(seat)} ${n}`).join(", "));
      notes.push(ctx.t(`${P}r.ten_rule`));
    }
    container.append(
      h("div", { class: "table-scroll" }, h("table", { class: "score-table f5-result", "data-testid": "f5-result" }, h("tbody", null, rows))),
      h("ul", { class: "f5-notes", style: { fontSize: "0.9rem", paddingLeft: "1.2rem" } }, notes.map((note) => h("li", null, note))));
  },
};
