/** One match: final ranking, a chart and a table of the scores hand by hand, each hand's explanation
 * from the plugin, and (once the server has analysed a finished match) each person's review. */
import { h, replace } from "../dom.js";
import { gameById, get, me } from "../api.js";
import { addStrings, lang, t } from "../i18n.js";
import { formatScore, loadPlugin, rankSeats } from "../table.js";
import { cardEl } from "../cards.js";
import { errorBox, gameName, header, loading, main, personLink, seatLabel } from "./common.js";
import { lineChart } from "../charts.js";
import { actionText, bestText, decisionPlace, lossText, watchAnalysis } from "../review.js";
import { formatDate } from "./boards.js";
import { ChatPanel } from "../chat.js";
import { takeBackCounts } from "../takeback.js";
import { matchTitle, roomName, setTabTitle } from "./names.js";

/** Hand numbers as a sentence names them: "2", "2 and 3", "2, 3 and 4" (「2・3・4」). */
function handList(numbers) {
  if (numbers.length < 2) return numbers.join("");
  const first = numbers.slice(0, -1).join(lang() === "ja" ? "・" : ", ");
  return t("match.same_deals.hand_list", { first, last: numbers[numbers.length - 1] });
}

export async function matchPage(id) {
  loading();
  const person = await me();
  header(person);
  let match;
  try {
    match = await get(`/api/matches/${encodeURIComponent(id)}`);
  } catch (error) {
    replace(main, errorBox(error));
    return;
  }
  const game = await gameById(match.game_id).catch(() => null);
  const plugin = await loadPlugin(match.game_id);
  const seats = match.seats || [];
  const seatName = (n) => seatLabel(seats.find((s) => s.n === n), n);
  // The person a seat links to: only a seat shown with a person's name (one a bot finished for
  // them is shown as that bot, so a link to the person would not say where it goes).
  const personOf = (n) => {
    const seat = seats.find((s) => s.n === n);
    return seat && seat.kind === "person" ? seat.person_id : null;
  };
  const players = match.players || seats.length;
  const seatNumbers = Array.from({ length: players }, (_, n) => n);
  const hands = match.hands || [];
  const totals = match.totals || seatNumbers.map((n) => hands.reduce((sum, hand) => sum + (hand.scores[n] || 0), 0));
  // Until the match ends there is no stored ranking; rank the running totals instead.
  const ranking = Array.isArray(match.ranking) && match.ranking.length ? match.ranking : rankSeats(totals);
  const title = match.room_name ? matchTitle(match.room_name, match.number) : t("match.number", { n: match.number });
  setTabTitle(title);
  replace(main,
    h("p", null, h("a", { class: "tap", href: "/history" }, `← ${t("nav.history")}`)),
    h("h1", { "data-testid": "match-title" }, title, " ", h("span", { class: "muted small" }, gameName(game) || match.game_id)),
    h("p", { class: "muted" }, formatDate(match.created_at), " · ", t(match.abandoned ? "status.abandoned" : `status.${match.status}`),
      match.room_code ? [" · ", h("a", { class: "tap", href: `/r/${match.room_code}` }, roomName(match.room_name, t("room.title", { code: match.room_code })))] : null),
    match.abandoned ? h("p", { class: "notice", "data-testid": "match-abandoned" }, t("match.abandoned")) : null,
    match.status === "finished" ? h("p", null, h("a", { class: "replay-link tap", href: `/matches/${match.id}/replay`, "data-testid": "match-replay" }, `▶ ${t("history.replay")}`)) : null,
    (match.same_deals || []).map((versus) => sameDealsSection(match, versus, seatName, seatNumbers)),
    h("h2", null, t("match.ranking")),
    h("ol", { class: "final-ranking", "data-testid": "ranking" }, ranking.map((r) => h("li", { value: r.rank },
      personLink(personOf(r.seat), seatName(r.seat)), ` ${formatScore(r.score)}`))),
    takeBackCounts(seats, seatName),
    h("h2", null, t("match.hands")),
    scoreChart(hands, seatName, seatNumbers),
    h("div", { class: "table-scroll" }, h("table", { class: "score-table stacks", "data-testid": "match-hands" },
      h("thead", null, h("tr", null, h("th", null, "#"), seatNumbers.map((n) => h("th", { class: "num" }, seatName(n))))),
      h("tbody", null, hands.map((hand, index) => h("tr", null, h("th", null, t("table.hand_no", { n: hand.hand_no ?? index + 1 })),
        seatNumbers.map((n) => h("td", { class: "num", "data-label": seatName(n) }, formatScore(hand.scores[n])))))),
      h("tfoot", null, h("tr", null, h("th", null, t("match.total")),
        seatNumbers.map((n) => h("td", { class: "num strong", "data-label": seatName(n) }, formatScore(totals[n])))))),
    handExplanations(plugin, match, hands, seatName, totals)),
    match.status === "finished" ? reviewSection(match, plugin, personOf, seatName) : null,
    matchChat(match, person));
}

addStrings({
  en: {
    "match.chart": "Running totals after each hand",
    "match.chart.hand": "Hand",
    "match.chart.score": "Total",
    "match.chart.start": "start",
  },
  ja: {
    "match.chart": "各ハンド後の累計得点",
    "match.chart.hand": "ハンド",
    "match.chart.score": "累計",
    "match.chart.start": "開始",
  },
});

/** Each seat's running total after every hand, as lines from zero. */
function scoreChart(hands, seatName, seatNumbers) {
  if (!hands.length) return null;
  const running = seatNumbers.map(() => 0);
  const after = hands.map((hand) => seatNumbers.map((n) => {
    running[n] += Number(hand.scores[n]) || 0;
    return hand.totals ? Number(hand.totals[n]) : running[n];
  }));
  return lineChart({
    caption: t("match.chart"),
    xName: t("match.chart.hand"),
    yName: t("match.chart.score"),
    xLabels: [t("match.chart.start"), ...hands.map((hand, i) => String(hand.hand_no ?? i + 1))],
    series: sameLines(seatNumbers.map((n) => ({ label: seatName(n), values: [0, ...after.map((totals) => totals[n])] }))),
    testid: "match-chart",
  });
}

/** Seats whose lines are the same all along (a Familia team shows the team's total on every
 * seat) as one line named after all of them, so no line hides another. */
function sameLines(series) {
  const byValues = new Map();
  for (const line of series) {
    const key = JSON.stringify(line.values);
    if (byValues.has(key)) byValues.get(key).labels.push(line.label);
    else byValues.set(key, { labels: [line.label], values: line.values });
  }
  return [...byValues.values()].map((line) => ({ label: line.labels.join(" · "), values: line.values }));
}

/** Each analysed person's review: average loss, and their costliest decisions as links into the
 * replay at that step. Shows the analysis's progress while the server works on it. */
function reviewSection(match, plugin, personOf, seatName) {
  const body = h("div", { "data-testid": "match-review-body", "aria-live": "polite" }, h("p", { class: "muted" }, t("common.loading")));
  const section = h("section", { class: "match-review", "data-testid": "match-review" },
    h("h2", null, t("review.title")),
    h("p", { class: "help", "data-testid": "review-honest" }, t("review.honest")),
    body);
  const replayHref = (version) => `/matches/${match.id}/replay#step=${version}`;
  const costlyItem = (d) => h("li", null, h("a", { class: "tap", href: replayHref(d.version), "data-testid": "review-costly" },
    t("review.costly", {
      where: decisionPlace(d, match.game_id),
      played: actionText(d.played, plugin.deck, match.game_id),
      best: bestText(d, plugin.deck, match.game_id),
      loss: lossText(d.loss),
    })),
  d.hint ? h("span", { class: "review-hinted muted small", "data-testid": "review-hinted" }, ` (${t("review.hinted.mark")})`) : null);
  const summary = (s) => h("div", { class: "review-person", "data-testid": "review-person", dataset: { seat: String(s.seat) } },
    h("h3", null, personLink(personOf(s.seat), seatName(s.seat))),
    h("p", null, h("strong", { "data-testid": "review-average" }, t("review.average", { loss: lossText(s.average_loss) })),
      h("span", { class: "muted small" }, ` · ${t("review.counts", { choices: s.choices, decisions: s.decisions })}`)),
    s.auto ? h("p", { class: "muted small", "data-testid": "review-auto" }, t(s.auto === 1 ? "review.auto_count.one" : "review.auto_count", { n: s.auto })) : null,
    s.hinted ? h("p", { class: "muted small", "data-testid": "review-hinted-count" }, t(s.hinted === 1 ? "review.hinted_count.one" : "review.hinted_count", { n: s.hinted })) : null,
    s.costliest && s.costliest.length
      ? [h("h4", null, t("review.costliest")), h("ol", { class: "review-costly" }, s.costliest.map(costlyItem))]
      : h("p", { class: "muted" }, t("review.no_costly")));
  watchAnalysis(match.id, (news) => {
    if (news.state === "none") {
      section.remove();
    } else if (news.state === "running") {
      replace(body, h("p", { class: "muted", "data-testid": "review-progress" },
        news.total ? t("review.running", { done: news.done, total: news.total }) : t("review.queued"),
        news.total ? h("progress", { max: String(news.total), value: String(news.done), "aria-label": t("review.title") }) : null));
    } else {
      const summaries = Object.values(news.analysis.summaries || {}).sort((a, b) => a.seat - b.seat);
      replace(body, summaries.map(summary));
    }
  }, () => section.isConnected);
  return section;
}

/** What the room said while this match ran (read-only). */
function matchChat(match, person) {
  const chat = new ChatPanel({
    load: (before) => get(`/api/matches/${encodeURIComponent(match.id)}/chat${before ? `?before=${before}` : ""}`),
    me: person ? person.id : null,
    emptyKey: "chat.empty.match",
  });
  chat.el.classList.add("match-chat");
  chat.reload();
  return chat.el;
}

/** The same cards in two matches, hand by hand: each seat's score here and (in brackets) the
 * score of the seat that held the same cards in the other match. */
function sameDealsSection(match, versus, seatName, seatNumbers) {
  // A tap target on phones too, though it stands inside a sentence (the layout checker's rule).
  const other = h("a", { class: "tap", href: `/matches/${versus.match_id}` }, matchTitle(match.room_name, versus.number));
  const line = (key) => {
    const [before, after] = t(key, { match: "\u0000" }).split("\u0000");
    return h("p", null, before, other.cloneNode(true), after);
  };
  const otherName = (n) => {
    const seat = versus.other_seats[n];
    return seat ? seatLabel(seat, seat.n) : "";
  };
  const cell = (mine, theirs) => h("td", { class: "num" }, formatScore(mine), " ",
    h("span", { class: "muted small" }, `(${theirs === null || theirs === undefined ? "–" : formatScore(theirs)})`));
  const sum = (rows, pick) => seatNumbers.map((n) => rows.reduce((total, row) => total + (Number(pick(row)[n]) || 0), 0));
  const rows = versus.hands || [];
  const fresh = versus.fresh_hands || [];
  // The rematch is the match that needed the fresh cards; the source is the match it replays.
  const [rematchNo, sourceNo] = versus.relation === "replay_of" ? [match.number, versus.number] : [versus.number, match.number];
  return h("section", { class: "same-deals-panel", "data-testid": "same-deals" },
    h("h2", null, t("match.same_deals.title")),
    line(`match.same_deals.${versus.relation}`),
    versus.rotate ? h("p", { class: "help" }, t("match.same_deals.rotated")) : null,
    line("match.same_deals.legend"),
    fresh.length ? h("p", { class: "notice", "data-testid": "same-deals-fresh" },
      t(`match.same_deals.fresh.${fresh.length === 1 ? "one" : "many"}`, {
        hands: handList(fresh), match: matchTitle(match.room_name, rematchNo), source: matchTitle(match.room_name, sourceNo),
      })) : null,
    rows.length ? h("div", { class: "table-scroll" }, h("table", { class: "score-table", "data-testid": "same-deals-table" },
      h("thead", null, h("tr", null, h("th", null, "#"), seatNumbers.map((n) => h("th", { class: "num" }, seatName(n),
        versus.rotate ? h("div", { class: "muted small" }, t("match.same_deals.vs", { name: otherName(n) })) : null)))),
      h("tbody", null, rows.map((row) => h("tr", { class: row.fresh ? "fresh" : null },
        h("td", null, String(row.hand_no), row.fresh ? h("span", { class: "tag" }, t("match.same_deals.fresh_row")) : null),
        seatNumbers.map((n) => cell(row.scores[n], row.other_scores[n]))))),
      h("tfoot", null, h("tr", null, h("th", null, t("match.total")),
        (() => {
          const mine = sum(rows, (row) => row.scores);
          const theirs = sum(rows, (row) => row.other_scores);
          return seatNumbers.map((n) => h("th", { class: "num" }, formatScore(mine[n]), " ",
            h("span", { class: "muted small" }, `(${formatScore(theirs[n])})`)));
        })())))) : null);
}

/** Each hand's explanation from the game plugin (the same as the table's result dialog). */
export function handExplanations(plugin, match, hands, seatName, totals) {
  if (!plugin.renderHandResult || !hands.length) return null;
  const ctx = {
    game: match.game_id,
    view: { game: match.game_id, seat: null, players: match.players, phase: "match_over", to_act: [], hand: [], hands, scores: totals },
    seat: null,
    legal: [],
    mySeats: [],
    isMyTurn: false,
    players: match.players,
    selected: [],
    setSelected() {},
    send: () => false,
    seatName,
    card: (code, options) => cardEl(code, plugin.deck, options),
    h,
    t,
    lang: lang(),
    redraw() {},
  };
  return hands.map((stored, index) => {
    // The server stores the engine's whole hand record (minus scores) as `details`.
    const inner = stored.details && stored.details.details && typeof stored.details.details === "object" ? stored.details : null;
    const hand = inner ? { ...inner, ...stored, details: inner.details } : stored;
    const box = h("div", { class: "hand-details" });
    try {
      plugin.renderHandResult(box, ctx, hand);
    } catch (error) {
      console.error("plugin hand result failed", error);
      return null;
    }
    return h("details", { class: "scores-panel match-hand", "data-testid": "match-hand-details" },
      h("summary", null, t("table.hand_result", { n: hand.hand_no ?? index + 1 })), box);
  });
}
