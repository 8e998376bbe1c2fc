/** The history page: the person's matches and the overall leaderboard. */
import { h, replace } from "../dom.js";
import { games, get, me } from "../api.js";
import { pick, t } from "../i18n.js";
import { formatScore } from "../table.js";
import { errorBox, gameName, header, loading, loginForm, main, nameForm } from "./common.js";
import { formatDate, leaderboardTable, normaliseLeaderboard } from "./boards.js";
import { roomName, setTabTitle } from "./names.js";

/** How many characters of a room's invite code tell two rooms of the same name apart. */
const ROOM_CODE_SHOWN = 5;

export async function historyPage() {
  loading();
  const person = await me();
  header(person);
  if (!person) {
    replace(main, nameForm(() => historyPage()), loginForm(() => historyPage()));
    return;
  }
  let matches;
  let board;
  let catalog = [];
  try {
    [matches, board, catalog] = await Promise.all([get("/api/me/matches"), get("/api/leaderboard").catch(() => null), games().catch(() => [])]);
  } catch (error) {
    replace(main, errorBox(error));
    return;
  }
  const list = Array.isArray(matches) ? matches : matches && Array.isArray(matches.matches) ? matches.matches : [];
  const nameOf = (id) => gameName(catalog.find((g) => g.id === id)) || id;
  const rows = normaliseLeaderboard(board);
  const roomLabel = roomLabels(list);
  setTabTitle(t("history.title"));
  replace(main,
    h("h1", null, t("history.title")),
    list.length
      ? h("div", { class: "table-scroll" }, h("table", { class: "score-table history stacks", "data-testid": "history" },
        h("thead", null, h("tr", null, ["history.date", "history.game", "history.room", "history.status", "history.score", "history.rank", ""]
          .map((key) => h("th", null, key ? t(key) : h("span", { class: "visually-hidden" }, t("history.links")))))),
        h("tbody", null, list.map((m) => h("tr", { dataset: { match: String(m.id) } },
          // data-label: on a phone each match is a stacked card of labelled cells (style.css).
          h("td", { "data-label": t("history.date") }, formatDate(m.created_at)),
          h("td", { "data-label": t("history.game") }, m.game_names ? pick(m.game_names) : nameOf(m.game_id)),
          h("td", { "data-label": t("history.room") }, m.room_code
            ? [h("a", { href: `/r/${m.room_code}`, "data-testid": "history-room" }, roomLabel(m)), " — ",
              h("a", { href: `/matches/${m.id}`, "data-testid": "history-match-number" }, t("match.number", { n: m.number }))]
            : ""),
          h("td", { "data-label": t("history.status") }, t(m.abandoned ? "status.abandoned" : `status.${m.status}`)),
          h("td", { class: "num", "data-label": t("history.score") }, m.my_score !== undefined && m.my_score !== null ? formatScore(m.my_score) : ""),
          h("td", { class: "num", "data-label": t("history.rank") }, m.my_rank ?? ""),
          h("td", null, h("span", null, h("a", { href: `/matches/${m.id}` }, t("history.open")),
            m.status === "finished" ? [" · ", h("a", { href: `/matches/${m.id}/replay`, "data-testid": "history-replay" }, t("history.replay"))] : null)))))))
      : h("p", { class: "muted" }, t("history.none")),
    h("h2", null, t("leaderboard.overall")),
    rows.length ? leaderboardTable(rows, nameOf) : h("p", { class: "muted" }, t("leaderboard.none")));
}

/**
 * Each match's room as the list names it: its name, and where two rooms of the list share a
 * name ("Friday cards" twice), the start of its invite code too, so the rows tell them apart.
 */
function roomLabels(list) {
  const codesByName = new Map();
  for (const m of list) {
    if (!m.room_code) continue;
    const name = roomName(m.room_name, m.room_code);
    codesByName.set(name, (codesByName.get(name) || new Set()).add(m.room_code));
  }
  return (m) => {
    const name = roomName(m.room_name, m.room_code);
    const shared = (codesByName.get(name) || new Set()).size > 1;
    return shared ? t("history.room_code", { name, code: m.room_code.slice(0, ROOM_CODE_SHOWN) }) : name;
  };
}
