/**
 * The dashboard's view panel, plain browser JavaScript kept as a string: what the model sees now
 * (`GET /api/sessions/:id/view`), in order, each message marked with what compaction made of it, and the
 * messages it no longer sees (summarized, dropped, archived…) folded where they were, readable when
 * opened. An offloaded output is read back from `…/offloaded`, a clipped text whole from `…/log/:seq`.
 * Live: a new call reloads it (one request at a time; calls arriving meanwhile cost one more reload).
 * What was opened stays open across reloads.
 */
export const VIEW_SCRIPT = `
const MARK_TEXT = {
  kept: 'kept', cleared: 'cleared', truncated: 'truncated', offloaded: 'offloaded', compressed: 'compressed',
  archived: 'archived', hidden: 'hidden', branched: 'branched (the client edited its history)', summarized: 'summarized',
  dropped: 'dropped', reset: 'reset', invisible: 'never shown to the model', orphan: 'left out (answers no call)',
  digest: 'digest', 'stand-in': 'stand-in result',
};
let viewLoading = false, viewAgain = false;

/** Reloads the selected session's view; a request already under way is followed by one more. */
async function refreshView() {
  if (viewLoading) { viewAgain = true; return; }
  viewLoading = true;
  const id = state.selected;
  try {
    const view = id === undefined ? null : await getJson(sessionPath(id, '/view'));
    const session = id === undefined ? undefined : state.sessions.get(id);
    if (session && view) {
      session.view = view;
      session.thresholds = view.thresholds || null;
    }
    if (id === state.selected) {
      renderChart();
      renderView();
    }
  } catch (error) {
    if (id === state.selected) renderView(error.status === 404 ? 'No message stored for this session yet.' : String(error.message || error));
  } finally {
    viewLoading = false;
    if (viewAgain) { viewAgain = false; refreshView(); }
  }
}

async function loadEarlier() {
  const session = selectedSession();
  if (!session || !session.view || session.view.before === null) return;
  const page = await getJson(sessionPath(session.id, '/view?before=' + session.view.before));
  if (state.selected !== session.id) return;
  session.view = { ...session.view, items: [...page.items, ...session.view.items], earlier: page.earlier, before: page.before };
  renderView();
}

/** A button that shows and hides a block below it, filling it once from \`load\` (kept open across renders). */
function toggleBlock(label, key, title, load) {
  const wrap = h('div', {});
  const button = h('button', { type: 'button', 'aria-expanded': 'false', 'data-toggle': key }, label);
  const block = h('div', { class: 'block', hidden: true });
  const show = async () => {
    button.setAttribute('aria-expanded', 'true');
    block.hidden = false;
    block.replaceChildren(h('h4', {}, title), h('pre', {}, 'loading…'));
    try {
      const text = await load();
      block.replaceChildren(h('h4', {}, title), h('pre', { class: 'loaded' }, text));
    } catch (error) {
      block.replaceChildren(h('h4', {}, title), h('pre', { class: 'failed' }, String(error.message || error)));
    }
  };
  button.addEventListener('click', () => {
    if (block.hidden) { state.open.add(key); show(); }
    else { state.open.delete(key); block.hidden = true; button.setAttribute('aria-expanded', 'false'); }
  });
  if (state.open.has(key)) show();
  wrap.append(button, block);
  return { button, block, wrap };
}

/** A button that reads an offloaded blob back from the proxy, and the block it shows it in. */
function offloadedBlock(ref, key, label) {
  const id = state.selected;
  const toggle = toggleBlock(label || 'read offloaded', 'offloaded:' + key, 'offloaded as ' + ref,
    () => getText(sessionPath(id, '/offloaded?ref=' + encodeURIComponent(ref))));
  toggle.button.classList.add('read-offloaded');
  toggle.block.classList.add('offloaded-content');
  return toggle.wrap;
}

/** The whole logged text of a message whose text was clipped. */
function wholeTextBlock(seq) {
  const id = state.selected;
  const toggle = toggleBlock('whole text', 'log:' + seq, 'message #' + seq + ' as logged', () => getText(sessionPath(id, '/log/' + seq)));
  toggle.button.classList.add('whole-text');
  return toggle.wrap;
}

function clippedNote(shown, chars) {
  return chars > shown ? h('span', { class: 'more' }, '… ' + fmt(chars - shown) + ' more characters') : undefined;
}

function itemNode(item) {
  const key = item.seq === null ? 'made' : String(item.seq);
  const text = h('pre', { class: 'text' + (state.open.has('text:' + key) ? ' open' : ''), title: 'click to show all of it' }, item.text);
  text.addEventListener('click', () => {
    text.classList.toggle('open');
    if (text.classList.contains('open')) state.open.add('text:' + key); else state.open.delete('text:' + key);
  });
  const head = h('div', { class: 'item-head' },
    h('span', { class: 'seq' }, item.seq === null ? '—' : '#' + item.seq),
    h('span', { class: 'role' }, item.role + (item.tool ? ' · ' + item.tool : '')),
    h('span', { class: 'badge mark-' + item.mark }, MARK_TEXT[item.mark] || item.mark),
    item.edit ? h('span', { class: 'by' }, 'by ' + item.edit.layer + ' · ' + item.edit.reason + ' · ' + timeOf(item.edit.at)) : undefined);
  const node = h('li', { class: 'item' + (item.inView ? '' : ' out'), 'data-seq': item.seq === null ? undefined : item.seq, 'data-mark': item.mark }, head, text,
    clippedNote(item.text.length, item.chars));
  const actions = h('div', { class: 'item-actions' });
  if (item.blobRef) actions.append(offloadedBlock(item.blobRef, key));
  if (item.original) {
    const original = toggleBlock('as logged', 'original:' + key, 'message #' + item.seq + ' as logged (before ' + item.mark + ')', async () =>
      item.original.chars > item.original.text.length ? getText(sessionPath(state.selected, '/log/' + item.seq)) : item.original.text);
    original.button.classList.add('show-original');
    actions.append(original.wrap);
  } else if (item.seq !== null && item.chars > item.text.length) actions.append(wholeTextBlock(item.seq));
  if (actions.childNodes.length) node.append(actions);
  return node;
}

/** Consecutive messages the view leaves out for the same reason, folded into one line. */
function groupNode(items) {
  const first = items[0], lastItem = items.at(-1);
  const key = 'group:' + first.mark + ':' + (first.edit ? first.edit.id : '') + ':' + first.seq;
  const details = h('details', {});
  if (state.open.has(key)) details.open = true;
  details.addEventListener('toggle', () => { if (details.open) state.open.add(key); else state.open.delete(key); });
  const range = first.seq === lastItem.seq ? '#' + first.seq : '#' + first.seq + '–#' + lastItem.seq;
  details.append(
    h('summary', {}, h('span', { class: 'badge mark-' + first.mark }, MARK_TEXT[first.mark] || first.mark),
      items.length + ' message' + (items.length === 1 ? '' : 's') + ' (' + range + ')' +
      (first.edit ? ' by ' + first.edit.layer + ' · ' + first.edit.reason : '') + ': not in the model\\'s view; open to read them'),
    h('ol', { class: 'group-items' }, ...items.map(itemNode)));
  return h('li', { class: 'group', 'data-mark': first.mark, 'data-count': items.length }, details);
}

function summaryNode(view) {
  const summary = view.summary;
  const node = h('li', { class: 'summary-block', id: 'view-summary' },
    h('div', { class: 'item-head' }, h('span', { class: 'role' }, 'summary'),
      h('span', {}, 'of #0–#' + summary.throughSeq + ' · ' + fmt(summary.tokens) + ' tokens · by ' + summary.producer)),
    h('pre', { class: 'text' }, summary.text), clippedNote(summary.text.length, summary.chars));
  if (summary.historyRef) node.append(h('div', { class: 'item-actions' }, offloadedBlock(summary.historyRef, 'summary', 'read the summarized transcript')));
  return node;
}

function renderView(problem) {
  const section = $('view-section');
  const session = selectedSession();
  if (!session) { section.hidden = true; return; }
  section.hidden = false;
  const list = $('view');
  const scroll = list.scrollTop;
  list.replaceChildren();
  const view = session.view;
  if (problem || !view) {
    $('view-marks').textContent = problem || 'loading…';
    return;
  }
  const marks = Object.entries(view.marks).sort((a, b) => b[1] - a[1]).map(([mark, count]) => fmt(count) + ' ' + mark);
  $('view-marks').textContent = fmt(view.log) + ' logged messages, ' + fmt(view.edits) + ' edits: ' + (marks.join(', ') || 'none');
  if (view.earlier > 0) {
    const more = h('button', { type: 'button', id: 'view-earlier' }, 'show ' + fmt(Math.min(view.earlier, 200)) + ' earlier of ' + fmt(view.earlier));
    more.addEventListener('click', () => loadEarlier().catch(() => {}));
    list.append(h('li', { class: 'earlier' }, more));
  }
  const cutThrough = view.cut ? view.cut.throughSeq : -1;
  let summaryShown = false;
  const placeSummary = () => {
    if (summaryShown) return;
    summaryShown = true;
    if (view.summary) list.append(summaryNode(view));
    if (view.reminder) list.append(h('li', { class: 'summary-block', id: 'view-reminder' },
      h('div', { class: 'item-head' }, h('span', { class: 'role' }, 'reminder')), h('pre', { class: 'text' }, view.reminder.text)));
  };
  let run = [];
  const flush = () => { if (run.length) list.append(groupNode(run)); run = []; };
  for (const item of view.items) {
    // The summary stands where the messages it replaces end.
    if (!summaryShown && (item.inView || item.seq === null || item.seq > cutThrough)) {
      flush();
      placeSummary();
    }
    if (!item.inView) {
      const prev = run[0];
      if (prev && (prev.mark !== item.mark || (prev.edit && prev.edit.id) !== (item.edit && item.edit.id))) flush();
      run.push(item);
      continue;
    }
    flush();
    list.append(itemNode(item));
  }
  flush();
  placeSummary();
  list.scrollTop = scroll;
}
`;
