/**
 * A name under a chart's bar, fitted to what the bar's share of the width holds: wrapped onto two
 * lines (at its spaces where it has some, else anywhere, as Japanese is), and cut with "…" only
 * where the second line still does not fit, so "Bots (all together)" or 「ボット（全員の合計）」
 * stays readable on a phone.
 */

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** Width in half-width characters: a Japanese, Chinese or Korean character counts two. */
function width(text) {
  let total = 0;
  for (const ch of text) total += WIDE.test(ch) ? 2 : 1;
  return total;
}

/** The longest start of `text` at most `room` wide. */
function head(text, room) {
  let taken = "";
  for (const ch of text) {
    if (width(taken + ch) > room) break;
    taken += ch;
  }
  return taken;
}

/**
 * `text` fitted to `room` half-width characters a line, on at most two lines ("\n" between them:
 * uPlot draws an axis label's lines one under the other).
 */
export function barLabel(text, room) {
  if (width(text) <= room) return text;
  const words = text.split(/\s+/);
  let first = "";
  while (words.length && width(first ? `${first} ${words[0]}` : words[0]) <= room) {
    first = first ? `${first} ${words.shift()}` : words.shift();
  }
  let rest = words.join(" ");
  if (!first) {
    first = head(text, room);
    rest = text.slice(first.length).trimStart();
  }
  const second = width(rest) <= room ? rest : `${head(rest, room - 1)}…`;
  return `${first}\n${second}`;
}
