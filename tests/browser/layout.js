// The measuring half of tests/browser/layout.py, run in the page by Playwright's evaluate().
({scope, required, minStrip, vertical, minTap, minFanTap}) => {
  // The layout is judged as it rests: cards still flying to the felt or into the hand
  // (static/js/motion.js) are put where they land first (endless effects, a pulse, stay).
  for (const animation of document.getAnimations()) {
    if (Number.isFinite(animation.effect?.getComputedTiming().endTime)) animation.finish();
  }
  window.scrollTo(0, 0);
  const vw = document.documentElement.clientWidth;
  const vh = window.innerHeight;
  const problems = [];
  const roots = [...document.querySelectorAll(scope)];
  const dialog = document.querySelector('.dialog-backdrop .dialog');
  // An open dialog covers the page: only what is inside it is seen.
  const within = dialog ? [dialog] : roots;
  const shown = (el) => {
    // checkVisibility also knows content a closed <details> hides.
    if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})) return false;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (el) => {
    const id = el.dataset && (el.dataset.testid || el.getAttribute('data-testid'));
    const text = (el.textContent || '').trim().slice(0, 30);
    return `${el.tagName.toLowerCase()}${id ? '[' + id + ']' : ''}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : ''} "${text}"`;
  };
  /** The part of `rect` a scroll container around `el` lets through (null: scrolled away). */
  const clipFor = (el) => {
    let box = {left: 0, top: -Infinity, right: vw, bottom: Infinity};
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (/(auto|scroll|hidden)/.test(s.overflowX + s.overflowY) && p !== document.body && p !== document.documentElement) {
        const r = p.getBoundingClientRect();
        box = {left: Math.max(box.left, r.left), top: Math.max(box.top, r.top), right: Math.min(box.right, r.right), bottom: Math.min(box.bottom, r.bottom)};
      }
    }
    return box;
  };
  /** The nearest ancestor that scrolls sideways, when it lies within the screen's width. */
  const sideScroller = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (/(auto|scroll)/.test(getComputedStyle(p).overflowX)) {
        const r = p.getBoundingClientRect();
        return r.left >= -0.5 && r.right <= vw + 0.5 ? p : null;
      }
    }
    return null;
  };
  const inView = (el, what) => {
    let r = el.getBoundingClientRect();
    // A wide table in a sideways scroll container of its own: the container is what must fit.
    if ((r.left < -0.5 || r.right > vw + 0.5) && el.tagName === 'TABLE' && sideScroller(el)) r = sideScroller(el).getBoundingClientRect();
    const off = r.left < -0.5 || r.right > vw + 0.5 || (vertical && (r.top < -0.5 || r.bottom > vh + 0.5));
    if (off) {
      problems.push(`${what} outside the ${vw}x${vh} viewport: ${name(el)} at ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)}`);
      return;
    }
    const c = clipFor(el);
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || (vertical && (r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5))) {
      problems.push(`${what} hidden in a scroll container: ${name(el)}`);
    }
  };

  if (document.documentElement.scrollWidth > vw + 0.5) {
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth}px wide in ${vw}px`);
  }
  for (const selector of required) {
    const found = [...document.querySelectorAll(selector)].filter(shown);
    if (!found.length) problems.push(`nothing shown for ${selector}`);
    for (const el of found) inView(el, selector);
  }
  // Every enabled control a person may need: buttons, inputs and cards they can click.
  const controls = within.flatMap((root) => [...root.querySelectorAll('button:not([disabled]), select:not([disabled]), input:not([disabled]):not([type=hidden])')])
    .filter(shown).filter((el) => !el.closest('details:not([open]) > :not(summary)'));
  for (const el of controls) inView(el, 'control');

  // Phones: nothing scrolls sideways, not even inside a box of its own (a wide result table).
  if (minTap) {
    for (const root of within) {
      for (const el of [root, ...root.querySelectorAll('*')]) {
        if (!/(auto|scroll)/.test(getComputedStyle(el).overflowX) || !shown(el)) continue;
        if (el.scrollWidth > el.clientWidth + 1) problems.push(`scrolls sideways: ${name(el)} ${el.scrollWidth}px wide in ${el.clientWidth}px`);
      }
    }
  }

  // Tap targets (phones): every enabled control, link and summary is at least minTap px both ways.
  // A checkbox or radio counts with its label; a card of a fanned row counts the strip that shows
  // (the next card covers the rest), which must be minFanTap px wide and minTap px tall.
  if (minTap) {
    const tappable = within.flatMap((root) => [...root.querySelectorAll('a[href], summary, [role=button], [tabindex]:not([tabindex="-1"])')])
      .filter(shown).filter((el) => !el.closest('details:not([open]) > :not(summary)'));
    for (const el of new Set([...controls, ...tappable])) {
      if (el.matches('.dialog-body, .table-scroll, .table-side, .chat-lines')) continue;  // scroll regions, not targets
      const target = el.matches('input[type=checkbox], input[type=radio]') && el.closest('label') ? el.closest('label') : el;
      const r = target.getBoundingClientRect();
      let width = r.width;
      let wanted = minTap;
      const fan = el.matches('.card') && el.closest('.fan-row');
      if (fan) {
        const next = el.nextElementSibling;
        if (next) width = Math.min(width, next.getBoundingClientRect().left - r.left);
        wanted = minFanTap;
      }
      if (width < wanted - 0.5 || r.height < minTap - 0.5) {
        problems.push(`tap target under ${wanted}x${minTap}px: ${name(el)} is ${Math.round(width)}x${Math.round(r.height)}`);
      }
    }
  }

  /** The part of a box its scroll containers let through, or null when nothing shows. */
  const clipped = (r, c) => {
    const box = {left: Math.max(r.left, c.left), top: Math.max(r.top, c.top), right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom)};
    return box.right - box.left >= 1 && box.bottom - box.top >= 1 ? box : null;
  };
  // Text runs (from Range rects, so a block's empty width does not count) and card boxes.
  const boxes = [];
  const cardOf = (el) => el.closest('.card');
  for (const root of within) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const el = node.parentElement;
      if (!el || !shown(el) || cardOf(el)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      // Clipped by its own element too (text hidden for all but screen readers shows nothing).
      for (const r of range.getClientRects()) {
        const seen = clipped(r, clipFor(node));
        if (seen) boxes.push({kind: 'text', el, r: seen});
      }
    }
    for (const el of root.querySelectorAll('.card')) {
      if (!shown(el)) continue;
      const seen = clipped(el.getBoundingClientRect(), clipFor(el));
      if (seen) boxes.push({kind: 'card', el, r: seen, fan: el.closest('.fan-row, .trick-play.fanned')});
    }
    for (const el of root.querySelectorAll('*')) {
      const s = getComputedStyle(el);
      if (s.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1 && shown(el)) {
        problems.push(`text cut short: ${name(el)}`);
      }
    }
    for (const table of root.querySelectorAll('table')) {
      if (!shown(table)) continue;
      const r = table.getBoundingClientRect();
      // Clipped to a pixel by an ancestor (a chart's table for screen readers): not on screen.
      const seen = clipped(r, clipFor(table));
      if (!seen || (seen.right - seen.left <= 1 && seen.bottom - seen.top <= 1)) continue;
      if (r.right > vw + 0.5 || r.left < -0.5) {
        let scroller = null;
        for (let p = table.parentElement; p && p !== root.parentElement; p = p.parentElement) {
          if (/(auto|scroll)/.test(getComputedStyle(p).overflowX)) { scroller = p; break; }
        }
        const sr = scroller && scroller.getBoundingClientRect();
        if (!scroller || sr.right > vw + 0.5 || sr.left < -0.5) problems.push(`a table runs off the screen: ${name(table)}`);
      }
    }
  }
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1.5;
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      if (!overlap(a.r, b.r)) continue;
      if (a.kind === 'card' && b.kind === 'card' && a.fan && a.fan === b.fan) {
        // A fan: the card drawn later covers the right part of the earlier one.
        const [under, over] = a.r.left <= b.r.left ? [a, b] : [b, a];
        if (over.r.left - under.r.left >= minStrip - 0.5) continue;
        problems.push(`fanned cards show less than ${minStrip}px: ${name(under.el)} / ${name(over.el)}`);
        continue;
      }
      problems.push(`${a.kind} overlaps ${b.kind}: ${name(a.el)} / ${name(b.el)}`);
    }
  }
  return problems;
}
