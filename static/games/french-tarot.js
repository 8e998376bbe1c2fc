/**
 * French Tarot (french-tarot): the table plugin.
 *
 * The panel follows the hand: the bids so far, the contract and its multiplier, the called card
 * (five players) and the partner once known, the dog shown to everyone at prise and garde, the
 * taker's discard (with any trumps it had to show), slam and poignée announcements, the excuse's
 * fate, and the points and oudlers the taker's side has taken so far. The discard is made by
 * clicking cards: the ones the rules forbid (kings, oudlers, trumps while other cards remain) are
 * disabled. The hand result lays out the arithmetic: points against the target, the difference,
 * (25 + difference ± petit au bout) × multiplier, poignées, slam, and each seat's share.
 */
import { h } from "../js/dom.js";
import { cardRow } from "../js/cards.js";
import { formatScore, genericHandHint } from "../js/table.js";

const P = "french-tarot.";

const strings = {
  en: {
    [`${P}option.petit_sec`]: "Petit sec may cancel the deal",
    [`${P}contract.prise`]: "Prise",
    [`${P}contract.prise.help`]: "Prise ×1: you take the dog into your hand and discard as many cards.",
    [`${P}contract.garde.help`]: "Garde ×2: as prise, for double the stake.",
    [`${P}contract.garde_sans.help`]: "Garde sans ×4: the dog is not seen and counts for you at the end.",
    [`${P}contract.garde_contre.help`]: "Garde contre ×6: the dog is not seen and counts for the defence.",
    [`${P}oudler.petit`]: "petit (1 of trumps)",
    [`${P}oudler.21`]: "21 of trumps",
    [`${P}oudler.excuse`]: "excuse",
    [`${P}contract.garde`]: "Garde",
    [`${P}contract.garde_sans`]: "Garde sans",
    [`${P}contract.garde_contre`]: "Garde contre",
    [`${P}pass`]: "Pass",
    [`${P}bid`]: "Bid {contract} (×{m})",
    [`${P}bids`]: "Bids",
    [`${P}no_bids`]: "Nobody has spoken yet.",
    [`${P}petit_sec`]: "Petit sec: cancel the deal",
    [`${P}call`]: "Call {card}",
    [`${P}calling`]: "The taker calls a partner's card.",
    [`${P}called`]: "Called card",
    [`${P}partner`]: "Partner: {name}",
    [`${P}partner_you`]: "You hold the called card: you are the taker's secret partner.",
    [`${P}partner_secret`]: "The partner is still secret.",
    [`${P}taker`]: "{name} takes: {contract} ×{m}",
    [`${P}dog`]: "The dog (shown to all)",
    [`${P}dog_hidden`]: "The dog stays face down ({n} cards): it counts for the {side}.",
    [`${P}side.taker`]: "taker",
    [`${P}side.defence`]: "defence",
    [`${P}discard_help`]: "Choose {n} card(s) to put aside ({k} of {n} chosen); click a chosen card to change it, then confirm. Kings and oudlers never; trumps only when nothing else is left (they are then shown).",
    [`${P}discard_confirm`]: "Put aside these {n}",
    [`${P}discard`]: "Your discard",
    [`${P}discard_trumps`]: "Trumps put aside (shown)",
    [`${P}slam_announce`]: "Announce a slam",
    [`${P}slam_pass`]: "No slam",
    [`${P}slam_announced`]: "Slam announced by {name}",
    [`${P}poignee_shown`]: "{name}: {level} poignée",
    [`${P}poignee_offer`]: "Before your first card you may declare a poignée, showing trumps to everyone. Pick a level, then choose which trumps to show.",
    [`${P}poignee_pick`]: "Choose trumps: {level} ({n})",
    [`${P}poignee_choosing`]: "Click trumps to choose the ones to show: {k} of {n} chosen. The excuse counts only when it is the last card you need.",
    [`${P}poignee_declare`]: "Declare the {level} poignée",
    [`${P}poignee_cancel`]: "Cancel",
    [`${P}poignee_hint`]: "Click trumps to choose which to show, then declare.",
    [`${P}level.simple`]: "simple",
    [`${P}level.double`]: "double",
    [`${P}level.triple`]: "triple",
    [`${P}taken`]: "Taker's side so far: {points} points, {oudlers} oudler(s)",
    [`${P}taken_secret`]: "(the taker's own tricks while the partner is secret)",
    [`${P}excuse.kept`]: "The excuse was played by {name}: its side keeps it and gives a half-point card in exchange.",
    [`${P}excuse.won_last_trick`]: "The excuse went to the last trick: it belongs to that trick's winner.",
    [`${P}excuse.slam`]: "The excuse won the last trick of a slam.",
    [`${P}excuse.played`]: "The excuse has been played by {name}.",
    [`${P}badge.taker`]: "Taker",
    [`${P}badge.partner`]: "Partner",
    [`${P}badge.tricks`]: "tricks {n}",
    [`${P}badge.pass`]: "pass",
    [`${P}redeals`]: "Redeals so far: {n}",
    [`${P}r.contract`]: "Contract",
    [`${P}r.points`]: "Taker's side points",
    [`${P}r.oudlers`]: "Oudlers of the taker's side",
    [`${P}r.target`]: "Target",
    [`${P}r.result`]: "Result",
    [`${P}r.won`]: "made by {d}",
    [`${P}r.lost`]: "failed by {d}",
    [`${P}r.petit`]: "Petit au bout",
    [`${P}r.contract_points`]: "(±(25 + difference) ± petit au bout) × multiplier",
    [`${P}r.poignee`]: "Poignées (to the winning side)",
    [`${P}r.slam`]: "Slam",
    [`${P}r.unit`]: "Unit (each defender scores the opposite)",
    [`${P}r.share`]: "Shares",
    [`${P}r.seat`]: "Seat",
    [`${P}r.role`]: "Role",
    [`${P}r.score`]: "Hand score",
    [`${P}r.excuse`]: "Excuse",
    [`${P}r.none`]: "none",
    [`${P}r.role.taker`]: "taker",
    [`${P}r.role.partner`]: "partner",
    [`${P}r.role.defender`]: "defender",
    [`${P}r.alone`]: "The taker played alone.",
    [`${P}r.petit.taker`]: "+10 (taker's side)",
    [`${P}r.petit.defence`]: "−10 (defence)",
  },
  ja: {
    [`${P}option.petit_sec`]: "プチ・セックで配り直しにできる",
    [`${P}contract.prise`]: "プリーズ",
    [`${P}contract.prise.help`]: "プリーズ ×1：ドッグを手札に加え、同じ枚数を捨てます。",
    [`${P}contract.garde.help`]: "ガルド ×2：プリーズと同じ手順で、得点は2倍。",
    [`${P}contract.garde_sans.help`]: "ガルド・サン ×4：ドッグは見ずに、最後にテイカー側の得点になります。",
    [`${P}contract.garde_contre.help`]: "ガルド・コントレ ×6：ドッグは見ずに、最後に守備側の得点になります。",
    [`${P}oudler.petit`]: "プチ（切り札の1）",
    [`${P}oudler.21`]: "切り札の21",
    [`${P}oudler.excuse`]: "エクスキューズ",
    [`${P}contract.garde`]: "ガルド",
    [`${P}contract.garde_sans`]: "ガルド・サン",
    [`${P}contract.garde_contre`]: "ガルド・コントレ",
    [`${P}pass`]: "パス",
    [`${P}bid`]: "{contract}（×{m}）をビッド",
    [`${P}bids`]: "ビッド",
    [`${P}no_bids`]: "まだ誰もビッドしていません。",
    [`${P}petit_sec`]: "プチ・セック：配り直しにする",
    [`${P}call`]: "{card} を指名",
    [`${P}calling`]: "テイカーがパートナーのカードを指名します。",
    [`${P}called`]: "指名されたカード",
    [`${P}partner`]: "パートナー：{name}",
    [`${P}partner_you`]: "指名されたカードを持っています。あなたはテイカーの秘密のパートナーです。",
    [`${P}partner_secret`]: "パートナーはまだ分かりません。",
    [`${P}taker`]: "{name} がテイカー：{contract} ×{m}",
    [`${P}dog`]: "シエン（全員に公開）",
    [`${P}dog_hidden`]: "シエン（{n}枚）は伏せたまま。{side}の得点になります。",
    [`${P}side.taker`]: "テイカー側",
    [`${P}side.defence`]: "ディフェンス側",
    [`${P}discard_help`]: "捨てるカードを{n}枚選んでください（{k}/{n}枚選択中）。選んだカードをもう一度クリックすると選び直せます。選んだら確定してください。キングとウドレは不可、切り札は他に捨てられるカードがない時だけ（公開されます）。",
    [`${P}discard_confirm`]: "この{n}枚を捨てる",
    [`${P}discard`]: "あなたの捨て札",
    [`${P}discard_trumps`]: "捨てられた切り札（公開）",
    [`${P}slam_announce`]: "スラムを宣言する",
    [`${P}slam_pass`]: "スラムは宣言しない",
    [`${P}slam_announced`]: "{name} がスラムを宣言しました",
    [`${P}poignee_shown`]: "{name}：{level}ポワニ",
    [`${P}poignee_offer`]: "最初のカードを出す前にポワニを宣言できます（切り札を全員に見せます）。段階を選んでから、見せる切り札を選んでください。",
    [`${P}poignee_pick`]: "切り札を選ぶ：{level}（{n}枚）",
    [`${P}poignee_choosing`]: "見せる切り札をクリックで選んでください：{n}枚中{k}枚。エクスキューズは最後の1枚が足りないときだけ使えます。",
    [`${P}poignee_declare`]: "{level}ポワニを宣言",
    [`${P}poignee_cancel`]: "やめる",
    [`${P}poignee_hint`]: "見せる切り札をクリックで選び、宣言してください。",
    [`${P}level.simple`]: "シングル",
    [`${P}level.double`]: "ダブル",
    [`${P}level.triple`]: "トリプル",
    [`${P}taken`]: "テイカー側の獲得：{points}点、ウドレ{oudlers}枚",
    [`${P}taken_secret`]: "（パートナーが分かるまではテイカー本人の分だけ）",
    [`${P}excuse.kept`]: "{name} がエクスキューズを出しました。その陣営が持ち続け、代わりに0.5点のカードを1枚渡します。",
    [`${P}excuse.won_last_trick`]: "エクスキューズは最終トリックに出たので、そのトリックの勝者のものになりました。",
    [`${P}excuse.slam`]: "エクスキューズがスラムの最終トリックを勝ち取りました。",
    [`${P}excuse.played`]: "{name} がエクスキューズを出しました。",
    [`${P}badge.taker`]: "テイカー",
    [`${P}badge.partner`]: "パートナー",
    [`${P}badge.tricks`]: "{n}トリック",
    [`${P}badge.pass`]: "パス",
    [`${P}redeals`]: "配り直し：{n}回",
    [`${P}r.contract`]: "コントラクト",
    [`${P}r.points`]: "テイカー側のポイント",
    [`${P}r.oudlers`]: "テイカー側のウドレ",
    [`${P}r.target`]: "目標点数",
    [`${P}r.result`]: "結果",
    [`${P}r.won`]: "{d}点上回って成功",
    [`${P}r.lost`]: "{d}点足りず失敗",
    [`${P}r.petit`]: "プチ・オ・ブ",
    [`${P}r.contract_points`]: "（±（25 + 差）± プチ・オ・ブ）× 倍率",
    [`${P}r.poignee`]: "ポワニ（勝った側へ）",
    [`${P}r.slam`]: "スラム",
    [`${P}r.unit`]: "単位（ディフェンダー各自はこの逆の得点）",
    [`${P}r.share`]: "各席の得点",
    [`${P}r.seat`]: "席",
    [`${P}r.role`]: "役割",
    [`${P}r.score`]: "このハンドの得点",
    [`${P}r.excuse`]: "エクスキューズ",
    [`${P}r.none`]: "なし",
    [`${P}r.role.taker`]: "テイカー",
    [`${P}r.role.partner`]: "パートナー",
    [`${P}r.role.defender`]: "ディフェンダー",
    [`${P}r.alone`]: "テイカーは1人で戦いました。",
    [`${P}r.petit.taker`]: "+10（テイカー側）",
    [`${P}r.petit.defence`]: "−10（ディフェンス側）",
  },
};

const MULTIPLIERS = { prise: 1, garde: 2, garde_sans: 4, garde_contre: 6 };
const POIGNEE_POINTS = { simple: 20, double: 30, triple: 40 };

function contractName(ctx, contract) {
  return contract ? ctx.t(`${P}contract.${contract}`) : "";
}

function cardName(ctx, code) {
  const el = ctx.card(code, { size: "sm" });
  return el.getAttribute("title") || code;
}

function formatPoints(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

const isPoigneeDeclaration = (action) => action.type === "declare" && action.what === "poignee";

/** The poignée levels this seat may declare now, each with the engine's suggested trumps. */
function poigneeOffers(ctx) {
  return ctx.legal.filter(isPoigneeDeclaration);
}

const isTrumpOrExcuse = (card) => card[0] === "T" || card === "EX";

/** Choosing which trumps to show: the play phase with poignée offers and a selection started. */
function choosingPoignee(ctx) {
  return ctx.view.phase === "play" && ctx.selected.length > 0 && poigneeOffers(ctx).length > 0;
}

/** The declaration the chosen trumps make, or null (the server checks it again). */
function chosenPoignee(ctx) {
  const chosen = ctx.selected;
  const offer = poigneeOffers(ctx).find((a) => a.cards.length === chosen.length);
  if (!offer || !chosen.every(isTrumpOrExcuse)) return null;
  const hiddenTrumps = (ctx.view.hand || []).filter((c) => c[0] === "T" && !chosen.includes(c));
  if (chosen.includes("EX") && hiddenTrumps.length) return null;
  return { type: "declare", what: "poignee", level: offer.level, cards: [...chosen] };
}

function poigneePanel(ctx) {
  const offers = poigneeOffers(ctx);
  const box = h("div", { class: "ft-poignee-choice", "data-testid": "ft-poignee-choice" });
  if (!choosingPoignee(ctx)) {
    box.append(h("p", { class: "help" }, ctx.t(`${P}poignee_offer`)),
      ...offers.map((offer) => h("button", { type: "button", class: "small", "data-testid": `ft-poignee-pick-${offer.level}`,
        onclick: () => ctx.setSelected([...offer.cards]) },
      ctx.t(`${P}poignee_pick`, { level: ctx.t(`${P}level.${offer.level}`), n: offer.cards.length }))));
    return box;
  }
  const declaration = chosenPoignee(ctx);
  // The level the chosen count heads for (offers come lowest first).
  const aim = declaration || offers.find((o) => o.cards.length >= ctx.selected.length) || offers[offers.length - 1];
  const level = ctx.t(`${P}level.${aim.level}`);
  box.append(h("p", { class: "help", "data-testid": "ft-poignee-count" },
    ctx.t(`${P}poignee_choosing`, { k: ctx.selected.length, n: aim.cards.length })));
  box.append(h("button", { type: "button", class: "primary small", "data-testid": "ft-poignee-declare", disabled: !declaration,
    onclick: () => { if (declaration) ctx.send(declaration); ctx.setSelected([]); } },
  ctx.t(`${P}poignee_declare`, { level })));
  box.append(h("button", { type: "button", class: "small", "data-testid": "ft-poignee-cancel", onclick: () => ctx.setSelected([]) },
    ctx.t(`${P}poignee_cancel`)));
  return box;
}

/** The discard step: the cards that may be put aside now (the engine takes one at a time). */
function discardCards(ctx) {
  return new Set(ctx.legal.filter((a) => a.type === "discard").map((a) => a.cards[0]));
}

/** How many cards the player chooses before confirming: the cards still to put aside, or fewer
 * when fewer may go now (trumps become allowed only once nothing else is left). */
function discardWanted(ctx) {
  return Math.min(ctx.view.discard_left || 0, discardCards(ctx).size);
}

/** The chosen discard (only cards that may still go) and its confirm button. */
function discardControls(ctx) {
  const allowed = discardCards(ctx);
  const chosen = ctx.selected.filter((c) => allowed.has(c));
  const wanted = discardWanted(ctx);
  const actions = chosen.map((card) => ctx.legal.find((a) => a.type === "discard" && a.cards[0] === card));
  return h("div", { class: "ft-discard-choice", "data-testid": "ft-discard-choice" },
    h("p", { class: "ft-discard-help", "data-testid": "ft-discard-help" }, ctx.t(`${P}discard_help`, { n: wanted, k: chosen.length })),
    h("button", {
      type: "button", class: "primary", "data-testid": "ft-discard-confirm", disabled: chosen.length !== wanted || !wanted,
      onclick: () => {
        ctx.setSelected([]);
        ctx.sendAll(actions);
      },
    }, ctx.t(`${P}discard_confirm`, { n: wanted })));
}

function bidsPanel(ctx) {
  const view = ctx.view;
  const rows = (view.bids || []).map((bid) => h("li", { dataset: { seat: String(bid.seat) } },
    h("strong", null, ctx.seatName(bid.seat)), ": ",
    bid.contract ? `${contractName(ctx, bid.contract)} ×${MULTIPLIERS[bid.contract]}` : ctx.t(`${P}pass`)));
  return h("div", { class: "ft-bids", "data-testid": "ft-bids" },
    h("strong", null, ctx.t(`${P}bids`)),
    rows.length ? h("ul", { style: { margin: "0.2rem 0", paddingLeft: "1.2rem" } }, rows) : h("p", { class: "muted" }, ctx.t(`${P}no_bids`)));
}

export default {
  deck: "french",
  direction: "ccw",
  strings,

  /** The engine orders each hand: trumps low to high, the excuse, then spades, hearts, clubs, diamonds. */
  sortHand: (cards) => cards,

  cardState(card, ctx) {
    if (ctx.view.phase === "discard") {
      if (!ctx.isMyTurn) return "";
      if (ctx.selected.includes(card)) return "selected";
      return discardCards(ctx).has(card) ? "legal" : "disabled";
    }
    if (!ctx.isMyTurn) return "";
    if (choosingPoignee(ctx)) {
      if (ctx.selected.includes(card)) return "selected";
      return isTrumpOrExcuse(card) ? "legal" : "disabled";
    }
    return ctx.legal.some((a) => a.type === "play" && a.cards[0] === card) ? "legal" : "disabled";
  },

  /** Clicks play a card only in the play phase; that is when the usual "click to play" hint fits
   * (unless the player is choosing the trumps of a poignée). */
  handHint(ctx) {
    if (choosingPoignee(ctx)) return ctx.t(`${P}poignee_hint`);
    return ctx.view.phase === "play" ? genericHandHint(ctx) : null;
  },

  onCardClick(card, ctx) {
    if (choosingPoignee(ctx)) {
      if (ctx.selected.includes(card)) ctx.setSelected(ctx.selected.filter((c) => c !== card));
      else if (isTrumpOrExcuse(card)) ctx.setSelected([...ctx.selected, card]);
      return true;
    }
    if (ctx.view.phase !== "discard") return false;
    // Select, change freely, then confirm: a click chooses or unchooses; with the choice full, a
    // new card takes the place of the one chosen last.
    if (ctx.selected.includes(card)) ctx.setSelected(ctx.selected.filter((c) => c !== card));
    else if (discardCards(ctx).has(card)) {
      const kept = ctx.selected.length >= discardWanted(ctx) ? ctx.selected.slice(0, -1) : ctx.selected;
      ctx.setSelected([...kept, card]);
    }
    return true;
  },

  /** Poignées are chosen in the panel (which trumps to show); every other non-card action is a button. */
  buttonActions(ctx) {
    return ctx.legal.filter((a) => a.type !== "play" && a.type !== "discard" && !isPoigneeDeclaration(a));
  },

  actionLabel(action, ctx) {
    if (action.type === "pass") return ctx.t(ctx.view.phase === "slam" ? `${P}slam_pass` : `${P}pass`);
    if (action.type === "bid") return ctx.t(`${P}bid`, { contract: contractName(ctx, action.contract), m: MULTIPLIERS[action.contract] });
    if (action.type === "call") return ctx.t(`${P}call`, { card: cardName(ctx, action.card) });
    if (action.type === "declare" && action.what === "slam") return ctx.t(`${P}slam_announce`);
    if (action.type === "declare" && action.what === "petit_sec") return ctx.t(`${P}petit_sec`);
    return action.type;
  },

  renderPanel(container, ctx) {
    const view = ctx.view;
    if (!view || view.phase === "deal" || view.phase === "match_over") {
      if (view && view.redeals) container.append(h("span", { class: "chip" }, ctx.t(`${P}redeals`, { n: view.redeals })));
      return;
    }
    const panel = h("div", { class: "ft-panel", "data-testid": "ft-panel", dataset: { phase: view.phase } });
    container.append(panel);
    if (view.phase === "bid" || view.taker === null) {
      panel.append(bidsPanel(ctx));
      // What each contract offered now means, one line each (buttons alone say only the name).
      const offered = ctx.legal.filter((a) => a.type === "bid" && a.contract).map((a) => a.contract);
      if (offered.length) {
        panel.append(h("ul", { class: "ft-bid-help", "data-testid": "ft-bid-help" },
          offered.map((contract) => h("li", null, ctx.t(`${P}contract.${contract}.help`)))));
      }
      return;
    }
    const chips = h("div", { class: "ft-info" },
      h("span", { class: "chip chip-hot", "data-testid": "ft-contract" },
        ctx.t(`${P}taker`, { name: ctx.seatName(view.taker), contract: contractName(ctx, view.contract), m: view.multiplier })),
      view.slam_announced ? h("span", { class: "chip chip-hot", "data-testid": "ft-slam" }, ctx.t(`${P}slam_announced`, { name: ctx.seatName(view.taker) })) : null,
      view.redeals ? h("span", { class: "chip chip-cool" }, ctx.t(`${P}redeals`, { n: view.redeals })) : null);
    panel.append(chips);

    if (view.called_card) {
      let partnerText;
      if (view.taker_alone) {
        partnerText = ctx.t(`${P}r.alone`);
      } else if (view.partner !== null && view.partner !== undefined) {
        partnerText = view.partner === view.seat ? ctx.t(`${P}partner_you`) : ctx.t(`${P}partner`, { name: ctx.seatName(view.partner) });
      } else {
        partnerText = ctx.t(`${P}partner_secret`);
      }
      panel.append(h("div", { class: "ft-called", "data-testid": "ft-called" },
        h("strong", null, `${ctx.t(`${P}called`)}: `), ctx.card(view.called_card, { size: "sm" }), " ", partnerText));
    } else if (view.phase === "call") {
      panel.append(h("p", null, ctx.t(`${P}calling`)));
    }

    if (view.dog) {
      panel.append(h("div", { class: "ft-dog", "data-testid": "ft-dog" }, h("strong", null, ctx.t(`${P}dog`)), cardRow(view.dog, "french")));
    } else if (view.contract === "garde_sans" || view.contract === "garde_contre") {
      panel.append(h("p", { class: "muted" }, ctx.t(`${P}dog_hidden`, {
        n: view.dog_size, side: ctx.t(`${P}side.${view.contract === "garde_contre" ? "defence" : "taker"}`),
      })));
    }
    if (view.phase === "discard" && ctx.isMyTurn) panel.append(discardControls(ctx));
    if (view.discard && view.discard.length) {
      panel.append(h("div", { class: "ft-discard" }, h("strong", null, ctx.t(`${P}discard`)), cardRow(view.discard, "french")));
    }
    if (view.discard_shown_trumps && view.discard_shown_trumps.length) {
      panel.append(h("div", { class: "ft-discard-trumps" }, h("strong", null, ctx.t(`${P}discard_trumps`)), cardRow(view.discard_shown_trumps, "french")));
    }
    for (const poignee of view.poignees || []) {
      panel.append(h("div", { class: "ft-poignee", "data-testid": "ft-poignee" },
        h("strong", null, ctx.t(`${P}poignee_shown`, { name: ctx.seatName(poignee.seat), level: ctx.t(`${P}level.${poignee.level}`) })),
        cardRow(poignee.cards, "french")));
    }
    if (view.excuse) {
      const key = view.excuse.fate ? `${P}excuse.${view.excuse.fate}` : `${P}excuse.played`;
      panel.append(h("p", { class: "ft-excuse", "data-testid": "ft-excuse" }, ctx.t(key, { name: ctx.seatName(view.excuse.seat) })));
    }
    if (view.phase === "play" && poigneeOffers(ctx).length) panel.append(poigneePanel(ctx));
    if (view.phase === "play") {
      const secret = view.players === 5 && !view.taker_alone && (view.partner === null || view.partner === undefined);
      panel.append(h("p", { class: "ft-taken", "data-testid": "ft-taken" },
        ctx.t(`${P}taken`, { points: formatPoints(view.taker_side_points), oudlers: view.taker_side_oudlers }),
        secret ? ` ${ctx.t(`${P}taken_secret`)}` : ""));
    }
  },

  /** Bids in the play log by their names (the generic log would print the engine's code). */
  logEvent(event, ctx) {
    if (event.type === "bid" && event.contract) return ctx.t("log.bid", { bid: `${contractName(ctx, event.contract)} ×${MULTIPLIERS[event.contract]}` });
    return undefined;
  },

  seatBadges(seat, ctx) {
    const view = ctx.view;
    if (!view) return null;
    const parts = [];
    if (view.phase === "bid") {
      const bid = (view.bids || []).find((b) => b.seat === seat);
      if (bid) parts.push(bid.contract ? contractName(ctx, bid.contract) : ctx.t(`${P}badge.pass`));
    } else if (view.taker !== null && view.taker !== undefined) {
      if (seat === view.taker) parts.push(ctx.t(`${P}badge.taker`));
      if (seat === view.partner && seat !== view.taker) parts.push(ctx.t(`${P}badge.partner`));
      if (view.phase === "play") parts.push(ctx.t(`${P}badge.tricks`, { n: view.tricks_won[seat] }));
    }
    return parts.length ? h("span", { class: "ft-badge" }, parts.join(" · ")) : null;
  },

  renderHandResult(container, ctx, hand) {
    const d = hand.details || {};
    const rows = [];
    const cell = { style: { whiteSpace: "normal", textAlign: "left" } };
    const row = (key, value, testid) => rows.push(h("tr", testid ? { "data-testid": testid } : null,
      h("th", cell, ctx.t(key)), h("td", cell, value)));
    row(`${P}r.contract`, `${ctx.seatName(d.taker)}: ${contractName(ctx, d.contract)} ×${d.multiplier}`);
    if (d.called_card) {
      row(`${P}called`, d.partner === null || d.partner === undefined ? `${cardName(ctx, d.called_card)} — ${ctx.t(`${P}r.alone`)}`
        : `${cardName(ctx, d.called_card)} — ${ctx.seatName(d.partner)}`);
    }
    row(`${P}r.points`, formatPoints(d.points), "ft-r-points");
    row(`${P}r.oudlers`, `${d.oudlers}${d.oudler_names && d.oudler_names.length ? ` (${d.oudler_names.map((name) => ctx.t(`${P}oudler.${name}`)).join(", ")})` : ""}`);
    row(`${P}r.target`, String(d.target), "ft-r-target");
    row(`${P}r.result`, ctx.t(d.won ? `${P}r.won` : `${P}r.lost`, { d: d.difference }));
    row(`${P}r.petit`, d.petit_au_bout_side ? ctx.t(`${P}r.petit.${d.petit_au_bout_side}`) : ctx.t(`${P}r.none`));
    const sign = d.petit_au_bout < 0 ? "−" : "+";
    row(`${P}r.contract_points`,
      `(${d.won ? "" : "−"}(25 + ${d.difference}) ${sign} ${Math.abs(d.petit_au_bout)}) × ${d.multiplier} = ${formatScore(d.contract_points)}`);
    const poignees = (d.poignees || []).map((p) => `${ctx.seatName(p.seat)} ${ctx.t(`${P}level.${p.level}`)} ${POIGNEE_POINTS[p.level]}`);
    row(`${P}r.poignee`, poignees.length ? `${poignees.join(", ")} → ${formatScore(d.poignee)}` : ctx.t(`${P}r.none`));
    row(`${P}r.slam`, d.slam ? formatScore(d.slam) : ctx.t(`${P}r.none`));
    if (d.excuse && d.excuse.fate) row(`${P}r.excuse`, ctx.t(`${P}excuse.${d.excuse.fate}`, { name: ctx.seatName(d.excuse.seat) }));
    row(`${P}r.unit`, formatScore(d.unit), "ft-r-unit");
    const shareRows = hand.scores.map((score, seat) => {
      const role = seat === d.taker ? "taker" : seat === d.partner ? "partner" : "defender";
      return h("tr", { dataset: { seat: String(seat), role } },
        h("td", null, ctx.seatName(seat)), h("td", null, ctx.t(`${P}r.role.${role}`)), h("td", { class: "num strong" }, formatScore(score)));
    });
    container.append(
      h("div", { class: "table-scroll" },
        h("table", { class: "score-table ft-result", "data-testid": "ft-result" }, h("tbody", null, rows))),
      h("div", { class: "table-scroll" },
        h("table", { class: "score-table ft-shares", "data-testid": "ft-shares" },
          h("caption", { style: { textAlign: "left", fontWeight: "600" } }, ctx.t(`${P}r.share`)),
          h("thead", null, h("tr", null, ["seat", "role", "score"].map((k) => h("th", null, ctx.t(`${P}r.${k}`))))),
          h("tbody", null, shareRows))));
  },
};
