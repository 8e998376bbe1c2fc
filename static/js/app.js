/**
 * The client's entry point: a small router over `location.pathname`; each page is its own module
 * under js/pages/ and draws into #main.
 *
 *   /                landing: name, create a room, open an invite link, sign in, profile
 *   /r/{code}        room and table (lobby, seats, options, start/rematch, live table)
 *   /history         your matches and the overall leaderboard (also /leaderboard)
 *   /matches/{id}    one match: hand-by-hand score table and final ranking
 *   /matches/{id}/replay  a finished match step by step with every hand face up
 *   /rules/{game}    a game's rule page (static/rules/<id>.<lang>.html)
 *   /people/{id}     a person's record: per game, their results and a chart of their last matches
 *
 * Links are ordinary links (full loads), which keeps every page addressable and the WebSocket
 * lifetime obvious.
 */
import { h, replace } from "./dom.js";
import { me } from "./api.js";
import { onLangChange, t } from "./i18n.js";
import { errorBox, header, main, redraw } from "./pages/common.js";
import { setPageName, setTurnMark } from "./title.js";
import { startAccessibility } from "./a11y.js";
import { landingPage } from "./pages/landing.js";
import { roomPage } from "./pages/room.js";
import { historyPage } from "./pages/history.js";
import { matchPage } from "./pages/match.js";
import { replayPage } from "./pages/replay.js";
import { rulesPage } from "./pages/rules.js";
import { recordPage } from "./pages/record.js";

function route() {
  const path = location.pathname.replace(/\/+$/, "") || "/";
  let m;
  if (path === "/") return landingPage();
  if ((m = path.match(/^\/r\/([^/]+)$/))) return roomPage(decodeURIComponent(m[1]));
  if (path === "/history" || path === "/leaderboard") return historyPage();
  if (path === "/me") {
    history.replaceState(null, "", "/#profile");
    return landingPage();
  }
  if ((m = path.match(/^\/matches\/([^/]+)$/))) return matchPage(decodeURIComponent(m[1]));
  if ((m = path.match(/^\/matches\/([^/]+)\/replay$/))) return replayPage(decodeURIComponent(m[1]));
  if ((m = path.match(/^\/rules\/([^/]+)$/))) return rulesPage(decodeURIComponent(m[1]));
  if ((m = path.match(/^\/people\/([^/]+)$/))) return recordPage(decodeURIComponent(m[1]));
  header(null);
  replace(main, h("p", null, t("notfound")));
  return null;
}

function run() {
  redraw.current = () => run();
  // Each page names itself; a table that awaits the person marks the turn again when it draws.
  setPageName("");
  setTurnMark("");
  Promise.resolve(route()).catch((error) => replace(main, errorBox(error)));
}

startAccessibility();
onLangChange(() => {
  redraw.current();
  me().then(header).catch(() => {});
});
run();
