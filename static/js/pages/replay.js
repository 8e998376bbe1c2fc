/**
 * A finished match's replay (/matches/{id}/replay): the table at every logged action with every
 * hand face up, stepped by buttons, a slider, the keyboard (← → one action; Shift+← → or ↑ ↓ one
 * trick; Space play/pause; Home/End; N / Shift+N the next / previous costly decision) or played at a
 * chosen speed, with the action described in words. Once the server has analysed the match
 * (review.js), a person's decision also says the best action and what the played one lost, and the
 * costliest decisions are marked under the slider. The felt, the seats and the last trick are drawn by the live table's own code (table.js);
 * the server sends `GET /api/matches/{id}/replay` patch-encoded (app/live/replays.py), read back here.
 */
import { h, morph, replace } from "../dom.js";
import { get, me } from "../api.js";
import { addStrings, lang, pick, t } from "../i18n.js";
import { Table, loadPlugin, narrowScreen, separatePlays } from "../table.js";
import { cardEl, suitName } from "../cards.js";
import { bestText, cardsText, costlyVersions, decisionNote, lossText, sameAction, watchAnalysis } from "../review.js";
import { markUndone, takenBackText } from "../takeback.js";
import { errorBox, header, loading, loginForm, main, nameForm } from "./common.js";
import { matchTitle, setTabTitle } from "./names.js";
import { expandSteps } from "../wire.js";

addStrings({
  en: {
    "replay.title": "Replay",
    "replay.match": "Match {n}",
    "replay.step": "Step {n} / {total}",
    "replay.hand": "Hand {n}",
    "replay.hand_of": "Hand {n} / {total}",
    "replay.back": "Scores",
    "replay.hands": "Every hand",
    "replay.panel": "Table details",
    "replay.log": "Download the log (JSON)",
    "replay.prev_step": "Previous action (←)",
    "replay.next_step": "Next action (→)",
    "replay.prev_trick": "Previous trick (↑ or Shift+←)",
    "replay.next_trick": "Next trick (↓ or Shift+→)",
    "replay.play": "Play (Space)",
    "replay.pause": "Pause (Space)",
    "replay.play.short": "Play",
    "replay.pause.short": "Pause",
    "replay.speed": "Speed: seconds per action",
    "replay.speed.value": "{s} s",
    "replay.jump": "Jump to hand",
    "replay.position": "Position in the match",
    "replay.hint": "Keys: ← → one action · ↑ ↓ or Shift+← → one trick · Space play/pause · Home/End",
    "replay.hint.costly": "N / Shift+N next / previous costly decision",
    "replay.next_costly": "Next costly decision (N)",
    "replay.prev_costly": "Previous costly decision (Shift+N)",
    "replay.costly_marks": "Costly decisions are marked under the slider.",
    "replay.start": "The match begins.",
    "replay.dealt": "Cards are dealt.",
    "replay.order": "{name} is drawn to deal first.",
    "replay.auto.time": "{name} (bot, time-out)",
    "replay.auto.away": "{name} (bot, while away)",
    "replay.plays": "{name} plays {cards}.",
    "replay.plays_as": "{card} as {as}",
    "replay.passes": "{name} passes.",
    "replay.no_slam": "{name} does not announce a slam.",
    "replay.bids": "{name} bids {bid}.",
    "replay.calls": "{name} calls {card}.",
    "replay.discards": "{name} puts aside {cards}.",
    "replay.gives": "{name} gives {cards}.",
    "replay.slam": "{name} announces a slam.",
    "replay.petit_sec": "{name} declares petit sec: the deal is cancelled.",
    "replay.poignee": "{name} shows a poignée: {cards}.",
    "replay.pile": "{name} turns a face card from the {pile} pile.",
    "replay.pile.black": "black",
    "replay.pile.red": "red",
    "replay.crest": "{name} picks {suit} as the crest.",
    "replay.other": "{name}: {what}.",
    "replay.took_back": "{name} took back {what}.",
    "replay.unseen.stock": "Stock (to be dealt)",
    "replay.unseen.aside": "Set aside, unseen",
    "replay.unseen.kitty": "Kitty",
    "replay.unseen.discards": "Declarer's discards",
    "replay.unseen.dog": "Dog (face down)",
    "replay.unseen.discard": "Taker's discard",
    "replay.unseen.draw_pile": "Draw pile",
    "replay.unseen.black": "Black face-card pile",
    "replay.unseen.red": "Red face-card pile",
    "replay.unseen.black_carry": "Black face cards carried over",
    "replay.unseen.red_carry": "Red face cards carried over",
    "replay.empty": "This match has no actions to replay.",
    "replay.secret_partner": "(secret partner)",
  },
  ja: {
    "replay.title": "リプレイ",
    "replay.match": "第{n}試合",
    "replay.step": "{n} / {total} 手",
    "replay.hand": "第{n}ハンド",
    "replay.hand_of": "第{n}ハンド / 全{total}",
    "replay.back": "得点表",
    "replay.hands": "全員の手札",
    "replay.panel": "卓の詳細",
    "replay.log": "ログをダウンロード（JSON）",
    "replay.prev_step": "1手戻る（←）",
    "replay.next_step": "1手進む（→）",
    "replay.prev_trick": "前のトリック（↑ または Shift+←）",
    "replay.next_trick": "次のトリック（↓ または Shift+→）",
    "replay.play": "再生（スペース）",
    "replay.pause": "一時停止（スペース）",
    "replay.play.short": "再生",
    "replay.pause.short": "停止",
    "replay.speed": "速さ（1手あたりの秒数）",
    "replay.speed.value": "{s} 秒",
    "replay.jump": "ハンドへ移動",
    "replay.position": "試合の中の位置",
    "replay.hint": "キー操作：← → 1手ずつ・↑ ↓ または Shift+← → 1トリックずつ・スペース 再生/停止・Home/End",
    "replay.hint.costly": "N / Shift+N 次 / 前の損失の大きい判断",
    "replay.next_costly": "次の損失の大きい判断（N）",
    "replay.prev_costly": "前の損失の大きい判断（Shift+N）",
    "replay.costly_marks": "損失の大きかった判断はスライダーの下に印があります。",
    "replay.start": "試合開始です。",
    "replay.dealt": "カードが配られました。",
    "replay.order": "{name}が最初の親に決まりました。",
    "replay.auto.time": "{name}（時間切れ・ボット）",
    "replay.auto.away": "{name}（離席中・ボット）",
    "replay.plays": "{name}が{cards}を出しました。",
    "replay.plays_as": "{card}（{as}として）",
    "replay.passes": "{name}はパスしました。",
    "replay.no_slam": "{name}はスラムを宣言しませんでした。",
    "replay.bids": "{name}は{bid}を宣言しました。",
    "replay.calls": "{name}は{card}を指名しました。",
    "replay.discards": "{name}が{cards}を伏せました。",
    "replay.gives": "{name}が{cards}を渡しました。",
    "replay.slam": "{name}がスラムを宣言しました。",
    "replay.petit_sec": "{name}がプチ・セックを宣言し、配り直しになりました。",
    "replay.poignee": "{name}がポワニェを見せました：{cards}。",
    "replay.pile": "{name}が{pile}の絵札の山から1枚めくりました。",
    "replay.pile.black": "黒",
    "replay.pile.red": "赤",
    "replay.crest": "{name}が家紋に{suit}を選びました。",
    "replay.other": "{name}：{what}。",
    "replay.took_back": "{name}が{what}を取り消しました（待った）。",
    "replay.unseen.stock": "山札（これから配られる札）",
    "replay.unseen.aside": "除外された札（非公開）",
    "replay.unseen.kitty": "キティ",
    "replay.unseen.discards": "デクレアラーの捨て札",
    "replay.unseen.dog": "シエン（伏せ札）",
    "replay.unseen.discard": "テイカーの捨て札",
    "replay.unseen.draw_pile": "引き札の山",
    "replay.unseen.black": "黒の絵札の山",
    "replay.unseen.red": "赤の絵札の山",
    "replay.unseen.black_carry": "持ち越しの黒の絵札",
    "replay.unseen.red_carry": "持ち越しの赤の絵札",
    "replay.empty": "この試合には再生する手がありません。",
    "replay.secret_partner": "（隠れパートナー）",
  },
});

const CHANCE = -1;
const SPEEDS = [2, 1, 0.5, 0.25];
const SHORT_PILE = 12;
/** A small card's width before one is drawn, and the strip each card of a face-up hand shows at
 * least: its whole rank ("10", "21"); a crowded table (six seats or more) shows less. */
const CARD_SM_PX = 34;
const FAN_STRIP_PX = 20;
const CROWDED_STRIP_PX = 14;
/** Piles the reader opened or closed by hand (kept while stepping). */
const openPiles = new Set();
const closedPiles = new Set();

/** The live table's drawing code, driven by the replay instead of a socket. */
class ReplayTable extends Table {
  render() {
    if (this.onRender) this.onRender();
  }
}

const isDeal = (step) => step.seat === CHANCE && Object.values(step.action).some((v) => Array.isArray(v) && v.length);

/** The action of `step` in words, in the reader's language; `auto` ("time" | "away") names a
 * move the server's bot made for the seat's person, so it is not read as theirs. */
export function describeStep(step, before, table, auto = null) {
  const { action, view } = step;
  const deck = table.plugin.deck;
  if (step.seat === CHANCE) {
    if (action.type === "order") return t("replay.order", { name: table.seatName(action.first, true) });
    return t("replay.dealt");
  }
  // A move made for a person names that person (their seat may have gone to a bot since).
  const credited = auto && table.room ? (table.room.seats || []).find((s) => s.n === step.seat && s.person_id) : null;
  const seatName = credited && credited.name ? credited.name : table.seatName(step.seat, true);
  const name = auto ? t(`replay.auto.${auto}`, { name: seatName }) : seatName;
  const cards = (list) => cardsText(list, deck);
  switch (action.type) {
    case "play": {
      const as = action.as || {};
      const parts = (action.cards || []).map((code) => (as[code]
        ? t("replay.plays_as", { card: cards([code]), as: cards([as[code]]) })
        : cards([code])));
      return t("replay.plays", { name, cards: parts.join(lang() === "ja" ? "、" : ", ") });
    }
    case "pass":
      return t(before && before.phase === "slam" ? "replay.no_slam" : "replay.passes", { name });
    case "bid": {
      let bid = action.contract ? t(`${table.gameId}.contract.${action.contract}`) : action.bid;
      const entry = [...(view.auction || [])].reverse().find((e) => e.seat === step.seat && e.bid === action.bid);
      if (entry && entry.label) bid = pick(entry.label);
      return t("replay.bids", { name, bid });
    }
    case "call":
      return t("replay.calls", { name, card: cards([action.card]) });
    case "discard":
      return t("replay.discards", { name, cards: cards(action.cards) });
    case "give":
      return t("replay.gives", { name, cards: cards(action.cards) });
    case "declare":
      if (action.what === "slam") return t("replay.slam", { name });
      if (action.what === "petit_sec") return t("replay.petit_sec", { name });
      if (action.what === "poignee") return t("replay.poignee", { name, cards: cards(action.cards) });
      break;
    case "take_back":
      return t("replay.took_back", { name, what: takenBackText(step.undone, cards) });
    case "choose":
      if (action.pile) return t("replay.pile", { name, pile: t(`replay.pile.${action.pile}`) });
      if (action.crest) return t("replay.crest", { name, suit: suitName(action.crest, deck) });
      break;
    default:
      break;
  }
  const what = Object.entries(action).map(([k, v]) => (k === "type" ? v : `${k} ${JSON.stringify(v)}`)).join(" ");
  return t("replay.other", { name, what });
}

/** Whether seat n is a partner nobody else knows of yet (French Tarot's called card): only that
 * seat's own view names it (`seat_private`), the table's does not. */
function secretPartner(view, n) {
  const own = (view.seat_private || [])[n] || {};
  return own.partner === n && view.partner !== n;
}

let keyHandler = null;
let hashHandler = null;
let timer = null;

export async function replayPage(id) {
  loading();
  const person = await me();
  header(person);
  if (!person) {
    replace(main, nameForm(() => replayPage(id)), loginForm(() => replayPage(id)));
    return;
  }
  let replay;
  try {
    replay = await get(`/api/matches/${encodeURIComponent(id)}/replay`);
  } catch (error) {
    replace(main, h("p", null, h("a", { href: `/matches/${encodeURIComponent(id)}` }, `← ${t("replay.back")}`)), errorBox(error));
    return;
  }
  const plugin = await loadPlugin(replay.game_id);
  const steps = markUndone(expandSteps(replay));
  if (!steps.length) {
    replace(main, h("p", { class: "muted" }, t("replay.empty")));
    return;
  }
  const root = h("div", { class: "replay", "data-testid": "replay" });
  const table = new ReplayTable(root, { gameId: replay.game_id, plugin, send: () => false, rulesHref: `/rules/${replay.game_id}` });
  table.room = { seats: replay.seats.map((seat) => ({ ...seat, connected: true })) };
  table.connection = "open";

  const tricks = steps.flatMap((step, i) => (step.patch.last_trick ? [i] : []));
  const handStarts = new Map();
  steps.forEach((step, i) => {
    const n = step.view.hand_no;
    if (!n) return;
    if (!handStarts.has(n) || (isDeal(step) && !isDeal(steps[handStarts.get(n)]))) handStarts.set(n, i);
  });
  const firstDeal = steps.findIndex(isDeal);
  const stepInHash = () => {
    const n = Number((location.hash.match(/step=(\d+)/) || [])[1]);
    return n >= 1 && n <= steps.length ? n - 1 : null;
  };
  let index = stepInHash() ?? Math.max(0, firstDeal);
  let speed = 1;
  let panelOpen = window.innerWidth >= 900;
  // The width of the face-up hands at the last drawing (0: not drawn yet), for their rows.
  let handWidth = 0;
  let cardWidth = 0;
  let measuring = false;
  // The analysis, once the server has it: each decision by the version its action made, and the
  // step indices of the costly ones (step i made version i + 1).
  let review = { state: "none" };
  let decisions = new Map();
  let costly = [];

  const stop = () => {
    clearInterval(timer);
    timer = null;
  };
  const go = (next) => {
    index = Math.max(0, Math.min(steps.length - 1, next));
    if (index === steps.length - 1) stop();
    history.replaceState(null, "", `#step=${index + 1}`);
    draw();
  };
  const nextTrick = () => go(tricks.find((i) => i > index) ?? steps.length - 1);
  const prevTrick = () => go([...tricks].reverse().find((i) => i < index) ?? 0);
  const nextCostly = () => go(costly.find((i) => i > index) ?? index);
  const prevCostly = () => go([...costly].reverse().find((i) => i < index) ?? index);
  const play = () => {
    if (timer) {
      stop();
      draw();
      return;
    }
    if (index >= steps.length - 1) index = 0;
    timer = setInterval(() => go(index + 1), speed * 1000);
    draw();
  };

  function controls() {
    const hands = [...handStarts.keys()].sort((a, b) => a - b);
    const handNo = steps[index].view.hand_no;
    const button = (label, text, onclick, testid) => h("button", { type: "button", class: "replay-btn", title: label, "aria-label": label, "data-testid": testid, onclick }, text);
    return h("div", { class: "replay-controls", "data-testid": "replay-controls" },
      h("div", { class: "replay-buttons" },
        button(t("replay.prev_trick"), "◀◀", prevTrick, "replay-prev-trick"),
        button(t("replay.prev_step"), "◀", () => go(index - 1), "replay-prev"),
        button(t("replay.next_step"), "▶", () => go(index + 1), "replay-next"),
        button(t("replay.next_trick"), "▶▶", nextTrick, "replay-next-trick"),
        h("button", { type: "button", class: ["replay-btn", "replay-play", timer && "playing"], "data-testid": "replay-play", onclick: play,
          title: t(timer ? "replay.pause" : "replay.play") }, t(timer ? "replay.pause.short" : "replay.play.short")),
        h("select", { class: "replay-speed", "aria-label": t("replay.speed"), title: t("replay.speed"), onchange: (e) => {
          speed = Number(e.target.value);
          if (timer) {
            stop();
            play();
          }
        } }, SPEEDS.map((s) => h("option", { value: String(s), selected: s === speed }, t("replay.speed.value", { s }))))),
      h("div", { class: "replay-where" },
        hands.length > 1
          ? h("select", { class: "replay-jump", "aria-label": t("replay.jump"), title: t("replay.jump"), "data-testid": "replay-jump",
            onchange: (e) => go(handStarts.get(Number(e.target.value))) },
          hands.map((n) => h("option", { value: String(n), selected: n === handNo }, t("replay.hand", { n }))))
          : null,
        h("div", { class: "replay-track" },
          h("input", { type: "range", class: "replay-slider", min: "1", max: String(steps.length), value: String(index + 1),
            "aria-label": t("replay.position"), "data-testid": "replay-slider", oninput: (e) => go(Number(e.target.value) - 1) }),
          costlyMarks()),
        costly.length ? [
          button(t("replay.prev_costly"), "◆◀", prevCostly, "replay-prev-costly"),
          button(t("replay.next_costly"), "▶◆", nextCostly, "replay-next-costly"),
        ] : null),
      h("p", { class: "replay-hint", "data-testid": "replay-hint" }, t("replay.hint"),
        costly.length ? [" · ", t("replay.hint.costly"), ". ", t("replay.costly_marks")] : null));
  }

  /** A tick under the slider at each costly decision (drawn only: the buttons and N reach them). */
  function costlyMarks() {
    if (!costly.length) return null;
    const place = (i) => (steps.length > 1 ? (100 * i) / (steps.length - 1) : 0);
    return h("div", { class: "replay-marks", "aria-hidden": "true", "data-testid": "replay-marks" },
      costly.map((i) => h("span", { class: ["replay-mark", i === index && "here"], style: `left: ${place(i)}%`, dataset: { step: String(i + 1) } })));
  }

  /** After the action's words, at a person's decision, what the analysis says of it: the best action and the loss, or that
   * the action played was the best one. */
  function reviewLine(step) {
    if (review.state === "running") {
      return h("span", { class: "replay-review muted", "data-testid": "replay-review-progress" },
        review.total ? t("review.running", { done: review.done, total: review.total }) : t("review.queued"));
    }
    const decision = decisions.get(step.version);
    if (!decision) return null;
    const note = decisionNote(decision, plugin.deck, replay.game_id);
    const noteEl = note ? h("span", { class: ["replay-review-note", decision.auto && "auto"], "data-testid": "replay-review-note" }, ` ${note}`) : null;
    if (decision.legal <= 1) return noteEl;
    const best = decision.loss <= 0 || sameAction(decision.best, decision.played);
    return h("span", { class: ["replay-review", best ? "best" : "costly", decision.auto && "auto"], "data-testid": "replay-review" },
      h("span", { class: "replay-review-verdict" }, best
        ? t("review.best_move")
        : t("review.best", { best: bestText(decision, plugin.deck, replay.game_id), loss: lossText(decision.loss) })),
      h("span", { class: "muted small" }, ` (${t("review.honest.short")})`),
      noteEl);
  }

  /**
   * A face-up hand as a fan in rows of about equal length (no row of two cards alone), each card
   * showing a strip wide enough for its rank ("11", never "1 1"): as many rows as the width the
   * hands had at the last drawing needs for FAN_STRIP_PX per card; each row spreads its cards
   * over the whole width (style.css, `.replay-hand-row`), without overlap when there is room.
   */
  function fanHand(cards, testId, many) {
    const width = handWidth || (narrowScreen() ? window.innerWidth - 130 : Math.min(window.innerWidth * 0.3, 420) - 100);
    const strip = many ? CROWDED_STRIP_PX : FAN_STRIP_PX;
    const fit = Math.max(2, Math.floor((width - (cardWidth || CARD_SM_PX)) / strip) + 1);
    const rows = Math.max(1, Math.ceil(cards.length / fit));
    const perRow = Math.ceil(cards.length / rows);
    const out = [];
    for (let i = 0; i < cards.length; i += perRow) {
      out.push(h("div", { class: "replay-hand-row fan-row", style: `--per-row: ${perRow}` },
        cards.slice(i, i + perRow).map((code) => cardEl(code, plugin.deck, { size: "sm" }))));
    }
    return h("div", { class: "replay-hand", "data-testid": testId }, out);
  }

  function handsPanel(view) {
    const toAct = (view.to_act || []).filter((s) => s >= 0);
    const many = (view.all_hands || []).length > 5; // a crowded table: smaller cards, and two columns on a phone
    const rows = (view.all_hands || []).map((cards, n) => h("li", { class: ["replay-seat-hand", toAct.includes(n) && "to-act"], dataset: { seat: String(n) } },
      h("span", { class: "replay-seat-name" }, table.seatName(n, true), h("span", { class: "muted" }, ` ${cards.length}`),
        secretPartner(view, n) ? h("span", { class: "replay-secret", "data-testid": "replay-secret-partner" }, ` ${t("replay.secret_partner")}`) : null),
      fanHand(cards, "replay-hand", many)));
    // Cards no seat holds; a long pile (a stock, a draw pile) stays folded until opened.
    const piles = Object.entries(view.unseen || {}).map(([name, cards]) => {
      const short = cards.length <= SHORT_PILE && !narrowScreen(); // a phone has no room to spare
      const open = openPiles.has(name) || (!closedPiles.has(name) && short);
      return h("li", { class: "replay-pile", dataset: { pile: name } },
        h("details", { open, ontoggle: (e) => {
          (e.target.open ? openPiles : closedPiles).add(name);
          (e.target.open ? closedPiles : openPiles).delete(name);
        } },
        h("summary", { class: "replay-seat-name" }, t(`replay.unseen.${name}`), h("span", { class: "muted" }, ` ${cards.length}`)),
        fanHand(cards, null, many)));
    });
    return h("section", { class: ["replay-hands", many && "many"], "data-testid": "replay-hands", "aria-label": t("replay.hands") },
      h("ul", null, rows, piles));
  }

  function draw() {
    const step = steps[index];
    const view = step.view;
    table.state = { match_id: replay.match_id, version: step.version, views: {}, legal: {}, spectator: view };
    const ctx = table.context();
    const players = view.players || replay.players;
    const toAct = (view.to_act || []).filter((s) => s >= 0);
    const panel = plugin.renderPanel ? table.pluginPanel(ctx) : null;
    const handText = view.hand_no
      ? view.hands_total ? t("replay.hand_of", { n: view.hand_no, total: view.hands_total }) : t("replay.hand", { n: view.hand_no })
      : "";
    // Only what the step changed is drawn again: the control a person is using (a focused
    // button, a slider being dragged) stays the same element.
    morph(root, [
      h("div", { class: "replay-status" },
        h("a", { class: "tap", href: `/matches/${replay.match_id}` }, `← ${t("replay.back")}`),
        h("h1", { class: "replay-title", "data-testid": "replay-title" }, `${title} · ${t("replay.title")}`),
        h("span", { "data-testid": "replay-hand-no" }, handText),
        h("span", { class: "replay-counter", "data-testid": "replay-step" }, t("replay.step", { n: index + 1, total: steps.length })),
        h("a", { class: "replay-log", href: `/api/matches/${replay.match_id}/log`, download: `match-${replay.match_id}.json` }, t("replay.log"))),
      h("p", { class: "replay-action", "data-testid": "replay-action", "aria-live": "polite" },
        describeStep(step, index ? steps[index - 1].view : null, table, (replay.auto || {})[String(step.version)] || null), reviewLine(step)),
      h("div", { class: "replay-body" },
        h("div", { class: "replay-stage" }, table.felt(view, ctx, players, toAct)),
        h("div", { class: "replay-side" },
          handsPanel(view),
          table.lastTrick(view),
          panel ? h("details", { class: "replay-panel", open: panelOpen, ontoggle: (e) => { panelOpen = e.target.open; } },
            h("summary", null, t("replay.panel")), panel) : null)),
      controls(),
    ]);
    separatePlays(root);
    // The hands' rows follow the width they are drawn in: drawn again once it is known.
    const drawn = root.querySelector("[data-testid=replay-hand]");
    const card = drawn && drawn.querySelector(".card");
    if (drawn && (Math.abs(drawn.clientWidth - handWidth) > 8 || (card && card.offsetWidth !== cardWidth)) && !measuring) {
      handWidth = drawn.clientWidth;
      cardWidth = card ? card.offsetWidth : cardWidth;
      measuring = true; // once: rows that bring a scroll bar must not redraw for ever
      draw();
      measuring = false;
    }
  }

  // "‹room name› — match 3", as the match page and history name it.
  const title = matchTitle(replay.room_name, replay.number, `${pick(replay.game_names)} · ${t("replay.match", { n: replay.number })}`);
  setTabTitle(`${title} · ${t("replay.title")}`);
  table.onRender = draw;
  if (keyHandler) document.removeEventListener("keydown", keyHandler);
  keyHandler = (event) => {
    if (!document.body.contains(root)) return;
    const target = event.target;
    if (target && (target.tagName === "SELECT" || (target.tagName === "INPUT" && target.type !== "range") || target.tagName === "TEXTAREA")) return;
    const keys = {
      ArrowRight: () => (event.shiftKey ? nextTrick() : go(index + 1)),
      ArrowLeft: () => (event.shiftKey ? prevTrick() : go(index - 1)),
      ArrowDown: nextTrick,
      ArrowUp: prevTrick,
      Home: () => go(0),
      End: () => go(steps.length - 1),
      " ": play,
      ...(costly.length ? { n: nextCostly, N: prevCostly } : {}),
    };
    const handler = keys[event.key];
    if (!handler || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    handler();
  };
  document.addEventListener("keydown", keyHandler);
  // A link to another step of this replay (#step=n, as the match page's review links) moves there.
  if (hashHandler) window.removeEventListener("hashchange", hashHandler);
  hashHandler = () => {
    const wanted = stepInHash();
    if (document.body.contains(root) && wanted !== null && wanted !== index) go(wanted);
  };
  window.addEventListener("hashchange", hashHandler);
  stop();
  replace(main, root);
  draw();
  watchAnalysis(replay.match_id, (news) => {
    review = news;
    if (news.state === "done") {
      decisions = new Map(news.analysis.decisions.map((d) => [d.version, d]));
      costly = costlyVersions(news.analysis).map((v) => v - 1).filter((i) => i >= 0 && i < steps.length);
    }
    draw();
  }, () => document.body.contains(root));
}
