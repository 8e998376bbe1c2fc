/**
 * Reads the server's lean state messages back into whole views for the renderers (the same
 * rules as app/wire.py): a view listed in `patched` holds only the keys that changed since this
 * socket's previous state of the match ("$removed" lists keys that went away); finished hands
 * arrive once (`hands_from`, `hands`) and are put back into every view as `view.hands`; a legal
 * entry `{type, …, choose: k, from: [cards]}` stands for every k-card pick from those cards.
 */

const REMOVED = "$removed";

/** Every distinct k-card pick from `cards` (equal codes are interchangeable). */
function combinations(cards, k) {
  const out = [];
  const seen = new Set();
  const pick = [];
  (function walk(start) {
    if (pick.length === k) {
      const key = [...pick].sort().join(",");
      if (!seen.has(key)) {
        seen.add(key);
        out.push([...pick]);
      }
      return;
    }
    for (let i = start; i <= cards.length - (k - pick.length); i++) {
      pick.push(cards[i]);
      walk(i + 1);
      pick.pop();
    }
  })(0);
  return out;
}

/** The full legal list: compact "choose k of these" entries expanded. */
export function expandLegal(legal) {
  const out = [];
  for (const action of legal || []) {
    if (action.choose === undefined || !Array.isArray(action.from)) {
      out.push(action);
      continue;
    }
    const { choose, from, ...rest } = action;
    for (const cards of combinations(from, choose)) out.push({ ...rest, cards });
  }
  return out;
}

export class StateReader {
  constructor() {
    this.views = new Map(); // match id -> {name: full view}
    this.hands = new Map(); // match id -> finished hands
  }

  /** The whole state for one lean `state` message. */
  read(message) {
    const id = message.match_id;
    if (!this.views.has(id)) this.views.set(id, {});
    if (!this.hands.has(id)) this.hands.set(id, []);
    const known = this.views.get(id);
    let hands = this.hands.get(id);
    if (Array.isArray(message.hands)) hands = hands.slice(0, message.hands_from).concat(message.hands);
    hands = hands.slice(0, message.hands_total);
    this.hands.set(id, hands);
    const patched = new Set(message.patched || []);
    const whole = (name, view) => {
      if (!view) return null;
      let merged;
      if (patched.has(name)) {
        merged = { ...(known[name] || {}) };
        for (const key of view[REMOVED] || []) delete merged[key];
        for (const [key, value] of Object.entries(view)) if (key !== REMOVED) merged[key] = value;
      } else {
        merged = { ...view };
      }
      known[name] = merged;
      return { ...merged, hands };
    };
    const views = {};
    for (const [seat, view] of Object.entries(message.views || {})) views[seat] = whole(seat, view);
    const legal = {};
    for (const [seat, list] of Object.entries(message.legal || {})) legal[seat] = expandLegal(list);
    return { ...message, views, legal, spectator: whole("spectator", message.spectator) };
  }
}
