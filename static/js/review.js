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
import { formatScore } from "./table.js";

addStrings({
  en: {
    "review.title": "Review",
    "review.honest": "Evaluated with every hand known: a player at the table could not see them, so this judges the cards, not the players' reading of them.",
    "review.honest.short": "with every hand known",
    "review.running": "Analysing every decision: {done} of {total} done…",
    "review.queued": "The analysis will start shortly…",
    "review.average": "Average loss per choice: {loss} points",
    "review.counts": "{choices} choices among {decisions} decisions",
    "review.costliest": "Costliest decisions",
    "review.costly": "Step {step}: {played} — best {best}, {loss}",
    "review.no_costly": "No decision lost points.",
    "review.best": "Best: {best}, {loss}",
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
    "review.costliest": "損失の大きかった判断",
    "review.costly": "{step}手目：{played} — 最善は{best}（{loss}）",
    "review.no_costly": "点を失った判断はありません。",
    "review.best": "最善：{best}、{loss}",
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

/** A loss as the points it cost: "+12" (what the best action would have added). */
export const lossText = (loss) => formatScore(Math.round(loss * 10) / 10);

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
