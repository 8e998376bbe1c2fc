/**
 * The client's half of the wire codec (app/live/wire.py is the server's), read back into whole
 * views for the renderers: a patched view holds only the keys that changed since the previous
 * one ("$removed" lists keys that went away), in the table's state messages (views listed in
 * `patched`) and in replays (every step after the first); finished hands arrive once
 * (`hands_from`, `hands`) and are put back into every view as `view.hands`; a legal entry
 * `{type, …, choose: k, from: [cards]}` stands for every k-card pick from those cards.
 * Both decoders are tested against the recorded messages in tests/fixtures/wire/.
 */

const REMOVED = "$removed";

/** A new view: `view` with `patch` applied (keys in `patch` replace, `$removed` ones go). */
export function mergePatch(view, patch) {
  const merged = { ...view };
  for (const key of patch[REMOVED] || []) delete merged[key];
  for (const [key, value] of Object.entries(patch)) if (key !== REMOVED) merged[key] = value;
  return merged;
}

/**
 * A replay's steps with whole views (the mirror of app/live/replays.py `expand_steps`): each step's
 * `view` is the table after its action as the all-seeing observer saw it, with `hands` (the
 * finished hands) instead of `hands_done`; `patch` keeps the step's view as sent (what changed).
 */
export function expandSteps(replay) {
  let view = {};
  return replay.steps.map((step) => {
    view = mergePatch(view, step.view);
    const { hands_done: done, ...whole } = view;
    return { ...step, patch: step.view, view: { ...whole, hands: replay.hands.slice(0, done || 0) } };
  });
}

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
      const merged = patched.has(name) ? mergePatch(known[name] || {}, view) : { ...view };
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
