/**
 * A finished match's review (`GET /api/matches/{id}/analysis`), shared by the match page and the
 * replay: fetching it (polling gently while the server analyses), the words for an action, and
 * which decisions count as costly (each person's costliest, as the server's summaries name them).
 *
 * The analysis values every decision with every hand known, which nobody at the table could see;
 * every place that shows it says so (`review.honest`).
 */
import { get } from "./api.js";
import { addStrings, lang, t } from "./i18n.js";
import { describeCard } from "./cards.js";

addStrings({
  en: {
    "review.title": "Review",
    "review.honest": "Evaluated with every hand known: a player at the table could not see them, so this judges the cards, not the players' reading of them.",
    "review.honest.short": "with every hand known",
    "review.running": "Analysing every decision: {done} of {total} done…",
    "review.queued": "The analysis will start shortly…",
    "review.average": "Average loss per choice: {loss} points",
    "review.counts": "{choices} choices among {decisions} decisions",
    "review.auto_count": "{n} moves the server made for them (time-outs, or a bot while they were away) are not counted.",
    "review.hinted_count": "{n} decisions made after asking for a hint.",
    "review.auto_count.one": "1 move the server made for them (a time-out, or a bot while they were away) is not counted.",
    "review.hinted_count.one": "1 decision made after asking for a hint.",
    "review.costliest": "Costliest decisions",
    "review.costly": "{where}: {played} — best {best}, lost {loss} points",
    "review.no_costly": "No decision lost points.",
    "review.best": "Best: {best} — this choice lost {loss} points",
    "review.where.step": "Step {step}",
    "review.where.trick": "Hand {hand}, trick {trick}",
    "review.where.round": "Hand {hand}, round {trick}",
    "review.where.phase": "Hand {hand}, {phase}",
    "review.phase.bid": "bidding",
    "review.phase.discard": "discard",
    "review.phase.exchange": "exchange",
    "review.phase.call": "calling a partner",
    "review.phase.slam": "slam announcement",
    "review.phase.pile": "choosing a pile",
    "review.phase.play": "play",
    "review.set_swap": "{put} instead of {instead}",
    "review.auto.time": "Played by the server's bot when the turn timer ran out: not counted in this person's figures.",
    "review.auto.away": "Played by the server's bot while the person was away: not counted in this person's figures.",
    "review.hinted.followed": "Played as the hint suggested ({hint}).",
    "review.hinted.other": "A hint had suggested {hint}.",
    "review.hinted.mark": "after a hint",
    "review.best_move": "Best move",
    "review.pass": "pass",
    "review.bid": "bid {bid}",
    "review.declare": "declare {what}",
    "review.take_back": "take back",
    "chart.unavailable": "The chart could not be drawn; the numbers are in the table.",
  },
  ja: {
    "review.title": "振り返り",
    "review.honest": "全員の手札が見えている状態での評価です。卓のプレイヤーには見えていなかったので、読みではなく札の良し悪しを示します。",
    "review.honest.short": "全員の手札が見えている状態での評価",
    "review.running": "すべての判断を分析中：{total}手中{done}手…",
    "review.queued": "まもなく分析を始めます…",
    "review.average": "選択1回あたりの平均損失：{loss}点",
    "review.counts": "{decisions}回の手番のうち選択肢があったのは{choices}回",
    "review.auto_count": "サーバーが代わりに打った{n}手（時間切れ、または離席中のボット）は数えていません。",
    "review.hinted_count": "ヒントを見てから決めた判断：{n}回",
    "review.auto_count.one": "サーバーが代わりに打った1手（時間切れ、または離席中のボット）は数えていません。",
    "review.hinted_count.one": "ヒントを見てから決めた判断：1回",
    "review.costliest": "損失の大きかった判断",
    "review.costly": "{where}：{played} — 最善は{best}（{loss}点の損）",
    "review.no_costly": "点を失った判断はありません。",
    "review.best": "最善：{best}（この選択で{loss}点の損）",
    "review.where.step": "{step}手目",
    "review.where.trick": "第{hand}ハンド・第{trick}トリック",
    "review.where.round": "第{hand}ハンド・第{trick}ラウンド",
    "review.where.phase": "第{hand}ハンド・{phase}",
    "review.phase.bid": "ビッド",
    "review.phase.discard": "捨て札",
    "review.phase.exchange": "カード交換",
    "review.phase.call": "パートナー指名",
    "review.phase.slam": "スラム宣言",
    "review.phase.pile": "山札の選択",
    "review.phase.play": "プレイ",
    "review.set_swap": "{instead}の代わりに{put}",
    "review.auto.time": "時間切れのためサーバーのボットが打った手です。この人の成績には数えません。",
    "review.auto.away": "離席中にサーバーのボットが打った手です。この人の成績には数えません。",
    "review.hinted.followed": "ヒントどおりに打ちました（{hint}）。",
    "review.hinted.other": "ヒントは{hint}でした。",
    "review.hinted.mark": "ヒントあり",
    "review.best_move": "最善手",
    "review.pass": "パス",
    "review.bid": "{bid}のビッド",
    "review.declare": "{what}の宣言",
    "review.take_back": "待った",
    "chart.unavailable": "グラフを描けませんでした。数値は表にあります。",
  },
});

/** Cards in words ("3♣, 10♥"), in the reader's language. */
export function cardsText(cards, deck) {
  return (cards || []).map((code) => describeCard(code, deck).label).join(lang() === "ja" ? "、" : ", ");
}

/** An action without its player, as the review names the played and the best one. */
export function actionText(action, deck, gameId) {
  if (!action) return "";
  if (Array.isArray(action.cards) && action.cards.length) return cardsText(action.cards, deck);
  if (action.card) return cardsText([action.card], deck);
  switch (action.type) {
    case "pass":
      return t("review.pass");
    case "bid":
      return t("review.bid", { bid: action.contract ? t(`${gameId}.contract.${action.contract}`) : action.bid });
    case "declare":
      return t("review.declare", { what: action.what });
    case "take_back":
      return t("review.take_back");
    default:
      return Object.entries(action).map(([k, v]) => (k === "type" ? v : `${k} ${JSON.stringify(v)}`)).join(" ");
  }
}

/** The same action, whatever the order of its keys. */
export function sameAction(a, b) {
  const canonical = (value) => JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1)))
    : v));
  return canonical(a) === canonical(b);
}

/** A loss as the points it cost, without a sign ("12.5"): the words around it say it is a loss
 * ("lost 12.5 points"), so it never reads as a gain. */
export function lossText(loss) {
  const points = Math.abs(Math.round(loss * 10) / 10);
  return Number.isInteger(points) ? String(points) : points.toFixed(1);
}

/** Where a decision was, as a player remembers it: "Hand 2, trick 5" (Yaya Fugou: "round"),
 * "Hand 1, discard", or, for a review stored before decisions carried it, "Step 30". */
export function decisionPlace(decision, gameId) {
  if (!decision.hand) return t("review.where.step", { step: decision.version });
  if (decision.phase === "play" && decision.trick) {
    return t(gameId === "yaya-fugou" ? "review.where.round" : "review.where.trick", { hand: decision.hand, trick: decision.trick });
  }
  const key = `review.phase.${decision.phase}`;
  const phase = t(key);
  return t("review.where.phase", { hand: decision.hand, phase: phase === key ? decision.phase : phase });
}

/** The best action in words; for a set (a discard), only what it changes: "♥5 instead of ♠7". */
export function bestText(decision, deck, gameId) {
  const { played, best } = decision;
  if (played && best && played.type === best.type && Array.isArray(played.cards) && Array.isArray(best.cards) && played.cards.length > 1) {
    const put = best.cards.filter((c) => !played.cards.includes(c));
    const instead = played.cards.filter((c) => !best.cards.includes(c));
    if (put.length && instead.length) return t("review.set_swap", { put: cardsText(put, deck), instead: cardsText(instead, deck) });
  }
  return actionText(best, deck, gameId);
}

/** The marks of a decision the person did not make alone: the server's move for them, or one
 * made after asking for a hint (with the hint in words). Null when there are none. */
export function decisionNote(decision, deck, gameId) {
  if (decision.auto) return t(`review.auto.${decision.auto}`);
  if (decision.hint) {
    return t(decision.followed ? "review.hinted.followed" : "review.hinted.other", { hint: actionText(decision.hint, deck, gameId) });
  }
  return null;
}

/** Versions of the costly decisions (every person's costliest), in log order. */
export function costlyVersions(analysis) {
  const versions = Object.values(analysis.summaries || {}).flatMap((s) => (s.costliest || []).map((d) => d.version));
  return [...new Set(versions)].sort((a, b) => a - b);
}

const FIRST_POLL_MS = 2000;
const LONGEST_POLL_MS = 10000;

/**
 * Follow the match's analysis: `onChange` gets `{state: "running", done, total}` while the server
 * works (polled every 2 s, then less often, up to every 10 s), then `{state: "done", analysis}`
 * once, or `{state: "none"}` when there is none to show: not a member, a running match, a
 * review that failed, or one with nobody in it (an abandoned match, one only bots played). Returns a function that stops the polling (a page that is left calls it;
 * a poll also stops by itself once `isLive()` says the page is gone).
 */
export function watchAnalysis(matchId, onChange, isLive = () => true) {
  let stopped = false;
  let wait = FIRST_POLL_MS;
  let timer = null;
  const poll = async () => {
    if (stopped || !isLive()) return;
    let answer;
    try {
      answer = await get(`/api/matches/${encodeURIComponent(matchId)}/analysis`);
    } catch {
      if (!stopped) onChange({ state: "none" });
      return;
    }
    if (stopped || !isLive()) return;
    if (answer && answer.status === "done" && Object.keys(answer.summaries || {}).length) {
      onChange({ state: "done", analysis: answer });
      return;
    }
    if (!answer || (answer.status !== "queued" && answer.status !== "running")) {
      onChange({ state: "none" });
      return;
    }
    const progress = (answer && answer.progress) || {};
    onChange({ state: "running", done: progress.done || 0, total: progress.total || 0 });
    timer = setTimeout(poll, wait);
    wait = Math.min(LONGEST_POLL_MS, Math.round(wait * 1.5));
  };
  queueMicrotask(poll); // after the caller has put its element on the page
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
