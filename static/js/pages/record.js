/**
 * A person's record (/people/{id}, linked from their name on match pages, leaderboards and the
 * review): per game, matches played, wins, average finishing place, average hand score, average
 * loss per choice in analysed matches, and their last matches as a chart and a list.
 */
import { h, replace } from "../dom.js";
import { get, me } from "../api.js";
import { addStrings, pick, t } from "../i18n.js";
import { formatScore } from "../table.js";
import { lineChart } from "../charts.js";
import { errorBox, header, loading, loginForm, main, nameForm } from "./common.js";
import { formatDate } from "./boards.js";
import { setTabTitle } from "./names.js";

addStrings({
  en: {
    "record.title": "{name}'s record",
    "record.mine": "Your record",
    "record.none": "No finished matches yet.",
    "record.matches": "Matches played",
    "record.wins": "Wins",
    "record.place": "Average place",
    "record.hand": "Average hand score",
    "record.hands": "over {n} hands",
    "record.hands.one": "over 1 hand",
    "record.loss": "Average loss per choice",
    "record.loss.none": "no analysed match yet",
    "record.analysed": "in {n} analysed matches, every hand known",
    "record.analysed.one": "in 1 analysed match, every hand known",
    "record.recent": "Last matches",
    "record.chart": "Final score of each recent match, oldest first",
    "record.chart.match": "Match",
    "record.chart.score": "Score",
    "record.date": "Date",
    "record.score": "Score",
    "record.placed": "Place",
    "record.place_of": "{place} of {players}",
    "record.stat": "Statistic",
    "record.value": "Value",
  },
  ja: {
    "record.title": "{name}さんの戦績",
    "record.mine": "あなたの戦績",
    "record.none": "終わった対戦はまだありません。",
    "record.matches": "対戦数",
    "record.wins": "1位の回数",
    "record.place": "平均順位",
    "record.hand": "1ハンドの平均得点",
    "record.hands": "{n}ハンド",
    "record.hands.one": "1ハンド",
    "record.loss": "選択1回あたりの平均損失",
    "record.loss.none": "分析済みの対戦はまだありません",
    "record.analysed": "分析済みの{n}試合・全員の手札が見えている状態での評価",
    "record.analysed.one": "分析済みの1試合・全員の手札が見えている状態での評価",
    "record.recent": "直近の対戦",
    "record.chart": "直近の対戦の最終得点（古い順）",
    "record.chart.match": "試合",
    "record.chart.score": "得点",
    "record.date": "日時",
    "record.score": "得点",
    "record.placed": "順位",
    "record.place_of": "{players}人中{place}位",
    "record.stat": "項目",
    "record.value": "値",
  },
});

const oneDecimal = (value) => (value === null || value === undefined ? "—" : (Math.round(value * 100) / 100).toFixed(2));

function gameSection(game) {
  const recent = game.recent || [];
  const stat = (key, value, testid) => h("tr", null, h("th", { scope: "row" }, t(key)), h("td", { class: "num", "data-testid": testid }, value));
  return h("section", { class: "record-game", "data-testid": "record-game", dataset: { game: game.game_id } },
    h("h2", null, game.game_names ? pick(game.game_names) : game.game_id),
    h("table", { class: "score-table record-stats" },
      h("thead", { class: "visually-hidden" }, h("tr", null, h("th", { scope: "col" }, t("record.stat")), h("th", { scope: "col" }, t("record.value")))),
      h("tbody", null,
        stat("record.matches", String(game.matches), "record-matches"),
        stat("record.wins", String(game.wins), "record-wins"),
        stat("record.place", oneDecimal(game.average_place), "record-place"),
        stat("record.hand", [game.average_hand_score === null ? "—" : formatScore(Math.round(game.average_hand_score * 10) / 10),
          h("span", { class: "muted small" }, ` (${game.hands === 1 ? t("record.hands.one") : t("record.hands", { n: game.hands })})`)], "record-hand"),
        stat("record.loss", game.average_loss === null || game.average_loss === undefined
          ? h("span", { class: "muted small" }, t("record.loss.none"))
          : [oneDecimal(game.average_loss), h("span", { class: "muted small" },
            ` (${game.analysed === 1 ? t("record.analysed.one") : t("record.analysed", { n: game.analysed })})`)], "record-loss"))),
    recent.length ? lineChart({
      caption: t("record.chart"),
      xName: t("record.chart.match"),
      yName: t("record.chart.score"),
      xLabels: recent.map((_, i) => String(i + 1)),
      series: [{ label: t("record.chart.score"), values: recent.map((m) => m.score) }],
      testid: "record-chart",
    }) : null,
    recent.length ? [h("h3", null, t("record.recent")),
      h("div", { class: "table-scroll" }, h("table", { class: "score-table stacks", "data-testid": "record-recent" },
        h("thead", null, h("tr", null, h("th", null, t("record.date")), h("th", { class: "num" }, t("record.score")), h("th", { class: "num" }, t("record.placed")))),
        h("tbody", null, [...recent].reverse().map((m) => h("tr", null,
          h("td", { "data-label": t("record.date") }, m.viewable
            ? h("a", { href: `/matches/${m.match_id}` }, formatDate(m.finished_at)) : formatDate(m.finished_at)),
          h("td", { class: "num", "data-label": t("record.score") }, formatScore(m.score)),
          h("td", { class: "num", "data-label": t("record.placed") }, m.place === null ? "—" : t("record.place_of", { place: m.place, players: m.players })))))))]
      : null);
}

export async function recordPage(id) {
  loading();
  const person = await me();
  header(person);
  if (!person) {
    replace(main, nameForm(() => recordPage(id)), loginForm(() => recordPage(id)));
    return;
  }
  let record;
  try {
    record = await get(`/api/people/${encodeURIComponent(id)}/record`);
  } catch (error) {
    replace(main, errorBox(error));
    return;
  }
  const title = record.is_me ? t("record.mine") : t("record.title", { name: record.name });
  setTabTitle(title);
  replace(main,
    h("p", null, h("a", { class: "tap", href: "/history" }, `← ${t("nav.history")}`)),
    h("h1", { "data-testid": "record-title" }, title),
    record.games.length ? record.games.map(gameSection) : h("p", { class: "muted" }, t("record.none")));
}
