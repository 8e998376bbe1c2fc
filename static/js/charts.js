/**
 * Charts: lines (scores hand by hand, a person's last matches) and bars (a leaderboard), drawn by
 * the vendored uPlot (static/vendor/uplot/, fetched on first use; no CDN, no build step).
 *
 * Each chart is a <figure>: a visible caption, a legend, the canvas (hidden from screen readers,
 * which cannot read pixels) and a visually hidden table of the same numbers as the text
 * alternative. The canvas follows the figure's width (a ResizeObserver), so a phone gets a narrower
 * plot with fewer axis ticks rather than a plot that scrolls sideways.
 */
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { barLabel } from "./labels.js";
import { formatScore } from "./table.js";

const VENDOR = "/static/vendor/uplot";
/** Okabe-Ito's colour-blind safe colours (yellow left out: too pale on white), then darker ones
 * for the tenth seat of a big Familia table; from the sixth line on, lines are dashed too. */
const COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F3C8D", "#555555", "#A6761D", "#1B5E20"];
const DASHED_FROM = 5;
const AXIS = { stroke: "#333", grid: { stroke: "#e3e3e3", width: 1 }, ticks: { stroke: "#bbb", width: 1 } };

let loading = null;

/** uPlot itself, loaded once (a classic script: the package ships no minified ES module). */
export function loadUPlot() {
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      document.head.append(h("link", { rel: "stylesheet", href: `${VENDOR}/uPlot.min.css` }));
      document.head.append(h("script", {
        src: `${VENDOR}/uPlot.iife.min.js`,
        onload: () => resolve(window.uPlot),
        onerror: () => {
          loading = null;
          reject(new Error("uPlot did not load"));
        },
      }));
    });
  }
  return loading;
}

export const seriesColour = (index) => COLOURS[index % COLOURS.length];

function legend(series) {
  return h("ul", { class: "chart-legend" }, series.map((s, i) => h("li", null,
    h("span", { class: ["chart-swatch", i >= DASHED_FROM && "dashed"], "aria-hidden": "true", style: `--swatch: ${seriesColour(i)}` }),
    s.label)));
}

/** The numbers as a table for screen readers: one row per x value, one column per series. (The
 * box around it hides it: a table's own box does not clip its cells.) */
function numbersTable(caption, xName, xLabels, series, format) {
  return h("div", { class: "visually-hidden" }, h("table", null,
    h("caption", null, caption),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, xName), series.map((s) => h("th", { scope: "col" }, s.label)))),
    h("tbody", null, xLabels.map((label, row) => h("tr", null, h("th", { scope: "row" }, label),
      series.map((s) => h("td", null, s.values[row] === null || s.values[row] === undefined ? "—" : format(s.values[row]))))))));
}

/** A figure whose plot is built by `build(uPlot, width, height)` once it has a width, and resized
 * with it. */
function figure({ caption, testid, table, legendOf, height, build }) {
  const plot = h("div", { class: "chart-plot", "aria-hidden": "true", "data-testid": testid ? `${testid}-plot` : null });
  const el = h("figure", { class: "chart", "data-testid": testid },
    h("figcaption", { class: "chart-caption" }, caption), legendOf, plot, table);
  let chart = null;
  const heightFor = (width) => height || (width < 500 ? 220 : 280);
  const observer = new ResizeObserver(() => {
    if (!plot.isConnected) {
      observer.disconnect();
      if (chart) chart.destroy();
      return;
    }
    const width = Math.floor(plot.clientWidth);
    if (!width) return;
    if (chart) {
      if (chart.width !== width) chart.setSize({ width, height: heightFor(width) });
      return;
    }
    loadUPlot().then((uPlot) => {
      if (chart || !plot.isConnected) return;
      chart = build(uPlot, width, heightFor(width));
      plot.append(chart.root);
      plot.dataset.drawn = "true";
    }).catch(() => plot.append(h("p", { class: "muted small" }, t("chart.unavailable"))));
  });
  observer.observe(plot);
  return el;
}

/** Whole numbers on an axis (hands, matches, points): uPlot would otherwise tick 0.5 or 2.5 steps. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000];

/**
 * A line per series over x = 0, 1, 2 … (`xLabels[i]` names x = i in the table and on the axis).
 * `series`: [{label, values}] with one value per x (null for a gap).
 */
export function lineChart({ caption, xName, yName, xLabels, series, testid, format = formatScore }) {
  const xs = xLabels.map((_, i) => i);
  return figure({
    caption,
    testid,
    legendOf: series.length > 1 ? legend(series) : null,
    table: numbersTable(caption, xName, xLabels, series, format),
    build: (uPlot, width, height) => new uPlot({
      width,
      height,
      legend: { show: false },
      cursor: { show: false },
      // A single x (one match so far) gets room either side instead of uPlot's guess.
      scales: { x: { time: false, range: xs.length === 1 ? [-0.5, 0.5] : undefined } },
      axes: [
        { ...AXIS, label: xName, incrs: WHOLE_STEPS, values: (u, ticks) => ticks.map((v) => xLabels[v] ?? "") },
        { ...AXIS, label: yName, size: 56, incrs: WHOLE_STEPS, values: (u, ticks) => ticks.map((v) => format(v)) },
      ],
      series: [{}, ...series.map((s, i) => ({
        label: s.label,
        stroke: seriesColour(i),
        width: 2,
        dash: i >= DASHED_FROM ? [6, 4] : undefined,
        spanGaps: true,
        points: { show: xs.length <= 40, size: 6, fill: seriesColour(i) },
      }))],
    }, [xs, ...series.map((s) => s.values)]),
  });
}

/** One bar per entry (`labels[i]`, `values[i]`), from zero up or down. */
export function barChart({ caption, xName, yName, labels, values, testid, format = formatScore }) {
  const xs = labels.map((_, i) => i);
  return figure({
    caption,
    testid,
    legendOf: null,
    table: numbersTable(caption, xName, labels, [{ label: yName, values }], format),
    build: (uPlot, width, height) => new uPlot({
      width,
      height,
      legend: { show: false },
      cursor: { show: false },
      scales: {
        x: { time: false, range: () => [-0.5, labels.length - 0.5] },
        y: { range: (u, min, max) => uPlot.rangeNum(Math.min(0, min), Math.max(0, max), 0.1, true) },
      },
      axes: [
        // Each name gets its bar's share of the width (about 7 px a character), on up to two lines.
        { ...AXIS, size: 64, incrs: [1], values: (u, ticks) => {
          const room = Math.max(6, Math.floor((u.width - 70) / labels.length / 7));
          return ticks.map((v) => (Number.isInteger(v) && labels[v] !== undefined ? barLabel(labels[v], room) : ""));
        } },
        { ...AXIS, label: yName, size: 56, incrs: WHOLE_STEPS, values: (u, ticks) => ticks.map((v) => format(v)) },
      ],
      series: [{}, {
        label: yName,
        stroke: seriesColour(0),
        fill: `${seriesColour(0)}cc`,
        fillTo: 0,
        paths: uPlot.paths.bars({ size: [0.6, 64] }),
        points: { show: false },
      }],
    }, [xs, values]),
  });
}
