/**
 * The dashboard script's core, plain browser JavaScript kept as a string (the page needs no bundler and
 * no file): the state, the requests (with the token from the URL fragment as the bearer key), the
 * session list, the savings figures and the event stream that keeps them live. Everything it shows is
 * built with createElement and textContent: no data ever reaches innerHTML.
 */
export const CORE_SCRIPT = `
'use strict';
const CONFIG = JSON.parse(document.getElementById('config').textContent);
const THRESHOLDS = CONFIG.display;
const hash = new URLSearchParams(location.hash.slice(1));
const token = hash.get('token') || hash.get('key');
const headers = token ? { authorization: 'Bearer ' + token } : {};
/** Calls kept per session, as the server keeps them. */
const MAX_CALLS = CONFIG.maxCalls;
const state = { sessions: new Map(), selected: undefined, call: undefined, open: new Set(), texts: new Map() };
const $ = (id) => document.getElementById(id);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const fmtK = (n) => (n >= 10000 ? (n / 1000).toFixed(n >= 100000 ? 0 : 1) + 'k' : fmt(n));
const percent = (x) => (Number.isFinite(x) ? Math.round(x * 100) + ' %' : '—');
const timeOf = (at) => new Date(at).toLocaleTimeString('en-US', { hour12: false });

/** An element with attributes and children (strings become text nodes: never markup). */
function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'hidden') node.hidden = true;
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== undefined && child !== null && child !== false) node.append(child);
  return node;
}

function levelOf(pressure) {
  if (pressure >= THRESHOLDS.dangerAt) return 'danger';
  if (pressure >= THRESHOLDS.warnAt) return 'warn';
  return 'ok';
}

const sessionPath = (id, rest) => '/api/sessions/' + encodeURIComponent(id) + rest;

async function request(path) {
  const response = await fetch(path, { headers });
  if (!response.ok) {
    let message = path + ': ' + response.status;
    try { message = (await response.json()).error.message || message; } catch {}
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return response;
}
const getJson = async (path) => (await request(path)).json();

/** A text read from the proxy once (an offloaded blob, a whole message): kept for re-renders, bounded. */
async function getText(path) {
  if (state.texts.has(path)) return state.texts.get(path);
  const text = await (await request(path)).text();
  state.texts.set(path, text);
  if (state.texts.size > 40) state.texts.delete(state.texts.keys().next().value);
  return text;
}

function entry(id) {
  let session = state.sessions.get(id);
  if (!session) {
    session = { id, updatedAt: 0, calls: [], thresholds: null, view: null };
    state.sessions.set(id, session);
  }
  return session;
}
const selectedSession = () => (state.selected === undefined ? undefined : state.sessions.get(state.selected));

function renderList() {
  const list = $('sessions');
  list.replaceChildren();
  const sessions = [...state.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  $('empty').hidden = sessions.length > 0;
  for (const session of sessions) {
    const last = session.calls.at(-1);
    const known = last && Number.isFinite(last.pressure);
    const pct = h('span', known
      ? { class: 'pct level-' + levelOf(last.pressure), 'data-level': levelOf(last.pressure) }
      : { class: 'pct muted' }, known ? Math.round(last.pressure * 100) + ' %' : '—');
    const id = h('span', { class: 'id', title: session.id }, session.id);
    const item = h('li', { 'data-session': session.id, class: session.id === state.selected ? 'selected' : '' }, id, pct);
    item.addEventListener('click', () => select(session.id));
    list.append(item);
  }
}

/** What the client sent against what went upstream, over the calls recorded in this process. */
function renderSavings() {
  const session = selectedSession();
  const calls = session ? session.calls : [];
  let sent = 0, saved = 0, compactions = 0;
  for (const call of calls) {
    sent += call.sent;
    saved += call.saved;
    if (call.compactions && call.compactions.length) compactions++;
  }
  const client = sent + saved;
  const figure = (key, label, value, sub) =>
    h('div', { 'data-figure': key }, h('dt', {}, label), h('dd', {}, value, sub ? h('span', { class: 'sub' }, ' ' + sub) : undefined));
  $('savings').replaceChildren(
    figure('client', 'client sent', fmt(client) + ' tokens'),
    figure('upstream', 'sent upstream', fmt(sent) + ' tokens'),
    figure('saved', 'saved', fmt(saved) + ' tokens', client > 0 ? '(' + (saved / client * 100).toFixed(1) + ' %)' : ''),
    figure('calls', 'calls', fmt(calls.length)),
    figure('compacted', 'calls that compacted', fmt(compactions)),
  );
  $('savings-note').textContent = calls.length
    ? 'Over the ' + calls.length + ' call' + (calls.length === 1 ? '' : 's') + ' recorded by this proxy process (the newest ' + MAX_CALLS + ' at most); tokens counted as the proxy counts requests.'
    : '';
}

function renderAll() {
  renderList();
  renderSavings();
  renderChart();
  renderDetail();
}

async function select(id) {
  if (state.selected !== id) {
    state.call = undefined;
    state.open.clear();
  }
  state.selected = id;
  const session = entry(id);
  try {
    const { calls } = await getJson(sessionPath(id, '/calls'));
    // Keep any call that arrived over the stream while this was on its way.
    const lastAt = calls.length ? calls.at(-1).at : 0;
    const known = new Set(calls.map((call) => call.at + ':' + call.sent));
    session.calls = [...calls, ...session.calls.filter((call) => !known.has(call.at + ':' + call.sent) && call.at > lastAt)];
  } catch {
    // No call recorded in this process (a session from before it started): an empty chart.
  }
  renderAll();
  refreshView();
}

async function load() {
  const { sessions } = await getJson('/api/sessions');
  for (const listed of sessions) entry(listed.id).updatedAt = listed.updatedAt;
  const recent = [...state.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, 50);
  await Promise.all(recent.map(async (session) => {
    try {
      session.calls = (await getJson(sessionPath(session.id, '/calls'))).calls;
    } catch {}
  }));
  if (state.selected === undefined && recent[0]) await select(recent[0].id);
  else renderAll();
}

function onCall({ session: id, call }) {
  const session = entry(id);
  session.calls.push(call);
  if (session.calls.length > MAX_CALLS) session.calls.splice(0, session.calls.length - MAX_CALLS);
  session.updatedAt = Math.max(session.updatedAt, call.at);
  if (state.selected === undefined) {
    select(id);
    return;
  }
  renderList();
  if (state.selected !== id) return;
  renderSavings();
  renderChart();
  renderDetail();
  refreshView();
}

// The event stream read with fetch (EventSource cannot send the token), reconnecting after a drop.
async function listen() {
  for (;;) {
    try {
      const response = await fetch('/api/events', { headers });
      if (!response.ok || !response.body) throw new Error('events: ' + response.status);
      $('status').textContent = 'live';
      $('status').className = 'live';
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\\n\\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message', data = '';
          for (const line of block.split('\\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data += (data ? '\\n' : '') + line.slice(5).replace(/^ /, '');
          }
          if (event === 'call' && data) onCall(JSON.parse(data));
        }
      }
    } catch {}
    $('status').textContent = 'reconnecting…';
    $('status').className = '';
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
`;

/** Starts the page: last, once every function is defined. */
export const START_SCRIPT = `
load().catch((error) => { $('status').textContent = String(error.message || error); });
listen();
`;
