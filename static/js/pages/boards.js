/** Leaderboard tables and dates, shared by the room page and the history page. */
import { h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { formatScore } from "../table.js";
import { barChart } from "../charts.js";
import { personLink } from "./common.js";

export function normaliseLeaderboard(data) {
  const rows = Array.isArray(data) ? data : data && Array.isArray(data.rows) ? data.rows : data && Array.isArray(data.entries) ? data.entries : [];
  return rows.map((row, index) => ({
    rank: row.rank ?? index + 1,
    gameId: row.game_id ?? null,
    personId: row.kind === "bot" ? null : row.person_id ?? null,
    name: row.kind === "bot" ? t("board.bots") : row.name ?? "",  // the server adds every bot into one entry
    bot: row.kind === "bot",
    me: Boolean(row.is_me),
    matches: row.matches ?? null,
    wins: row.wins ?? null,
    total: row.score ?? row.total ?? 0,
  }));
}

/** Leaderboard rows; with `gameNames` (overall board: one ranking per game) a game column is added. */
export function leaderboardTable(rows, gameNames) {
  const byGame = Boolean(gameNames) && rows.some((r) => r.gameId);
  const wins = rows.some((r) => r.wins !== null);
  // data-label: a phone stacks each row's cells (style.css, "stacks").
  return h("div", { class: "table-scroll" }, h("table", { class: "score-table leaderboard stacks", "data-testid": "leaderboard" },
    h("thead", null, h("tr", null, byGame ? h("th", null, t("history.game")) : null, h("th", null, "#"), h("th", null, t("leaderboard.player")),
      h("th", { class: "num" }, t("leaderboard.matches")), wins ? h("th", { class: "num" }, t("leaderboard.wins")) : null,
      h("th", { class: "num" }, t("leaderboard.total")))),
    h("tbody", null, rows.map((row) => h("tr", { class: row.me ? "me" : null },
      byGame ? h("td", { "data-label": t("history.game") }, gameNames(row.gameId)) : null,
      h("td", { "data-label": "#" }, String(row.rank)),
      h("td", { "data-label": t("leaderboard.player") }, personLink(row.personId, row.name)),
      h("td", { class: "num", "data-label": t("leaderboard.matches") }, row.matches === null ? "" : String(row.matches)),
      wins ? h("td", { class: "num", "data-label": t("leaderboard.wins") }, row.wins === null ? "" : String(row.wins)) : null,
      h("td", { class: "num", "data-label": t("leaderboard.total") }, formatScore(row.total)))))));
}

/** One room's leaderboard as bars of each entry's total (the table beside it has the numbers). */
export function leaderboardChart(rows) {
  if (rows.length < 2) return null;
  return barChart({
    caption: t("leaderboard.chart"),
    xName: t("leaderboard.player"),
    yName: t("leaderboard.total"),
    labels: rows.map((row) => row.name),
    values: rows.map((row) => row.total),
    testid: "leaderboard-chart",
  });
}

export function formatDate(value) {
  if (!value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString(lang() === "ja" ? "ja-JP" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
}
