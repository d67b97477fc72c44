// dama serve: the front end. Plain JavaScript, no build step, no outside
// files: the server sends everything (the page's security policy allows
// nothing else). Text from the server is only ever set as textContent.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function htmlEl(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function showError(msg) {
  $('error').textContent = msg || '';
}

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const r = await fetch(path, options);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) throw new ApiError(r.status, (data && data.error) || ('HTTP ' + r.status));
  return data;
}

// ---------------------------------------------------------------- board

const S = 56; // square size
const M = 20; // margin for the coordinates

// The labels of a line of squares: the characters every name in it shares
// at the same place (`a` for a1..a8, `3` for a3..d3).
function commonLabel(names) {
  if (!names.length) return '';
  let out = '';
  for (let i = 0; i < names[0].length; i++) {
    if (names.every((n) => n[i] === names[0][i])) out += names[0][i];
  }
  return out;
}

// The 8 × 8 draughts board until a view says otherwise.
const DEFAULT_GEOMETRY = (() => {
  const squares = [];
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) squares.push('abcdefgh'[x] + (8 - y));
  return { game: 'draughts', width: 8, height: 8, squares,
    sides: [{ name: 'White', key: 'white' }, { name: 'Black', key: 'black' }] };
})();

// Any rectangular board, drawn from a game's geometry: its size, every
// square's name (row-major from the top-left as the first side sees it)
// and its sides.
class Board {
  constructor(svg, onClick) {
    this.svg = svg;
    this.flipped = false;
    this.onClick = onClick;
    this.setGeometry(DEFAULT_GEOMETRY);
    svg.addEventListener('click', (ev) => {
      const sq = ev.target && ev.target.getAttribute && ev.target.getAttribute('data-square');
      if (sq && this.onClick) this.onClick(sq);
    });
  }

  setGeometry(geo) {
    if (!geo) return;
    this.geo = geo;
    this.cell = new Map(geo.squares.map((n, i) => [n, i]));
    this.svg.setAttribute('viewBox', '0 0 ' + (2 * M + geo.width * S) + ' ' + (2 * M + geo.height * S));
    this.svg.dataset.game = geo.game || '';
    this.svg.dataset.size = geo.width + 'x' + geo.height;
  }

  xy(sq) {
    const c = this.cell.get(sq);
    if (c === undefined) return [-S, -S];
    const w = this.geo.width, h = this.geo.height;
    let x = c % w, y = Math.floor(c / w);
    if (this.flipped) { x = w - 1 - x; y = h - 1 - y; }
    return [M + x * S, M + y * S];
  }

  center(sq) {
    const [x, y] = this.xy(sq);
    return [x + S / 2, y + S / 2];
  }

  // state: { pieces: [{square, piece}], last: move view, selected, targets: [sq],
  //          forced: bool, captured: [sq], arrows: [{squares, width, best}] }
  draw(state) {
    const svg = this.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const defs = svgEl('defs', {}, svg);
    const marker = svgEl('marker', { id: svg.id + '-head', viewBox: '0 0 10 10', refX: '5', refY: '5',
      markerWidth: '3', markerHeight: '3', orient: 'auto-start-reverse' }, defs);
    svgEl('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: 'rgba(21,101,192,0.85)' }, marker);
    const w = this.geo.width, h = this.geo.height;
    this.geo.squares.forEach((sq, c) => {
      const [x, y] = this.xy(sq);
      const shade = ((c % w) + Math.floor(c / w)) % 2 ? 'dark' : 'light';
      svgEl('rect', { x, y, width: S, height: S, class: 'sq ' + shade, 'data-square': sq }, svg);
    });
    for (let i = 0; i < w; i++) {
      const x = this.flipped ? w - 1 - i : i;
      const names = this.geo.squares.filter((_, c) => c % w === x);
      svgEl('text', { x: M + i * S + S / 2 - 4, y: M + h * S + 15, class: 'coord' }, svg).textContent = commonLabel(names);
    }
    for (let i = 0; i < h; i++) {
      const y = this.flipped ? h - 1 - i : i;
      const names = this.geo.squares.filter((_, c) => Math.floor(c / w) === y);
      svgEl('text', { x: 5, y: M + i * S + S / 2 + 5, class: 'coord' }, svg).textContent = commonLabel(names);
    }
    const hl = (sq, cls) => {
      const [x, y] = this.xy(sq);
      svgEl('rect', { x, y, width: S, height: S, class: 'hl ' + cls }, svg);
    };
    if (state.last) {
      hl(state.last.from, 'last');
      for (const sq of state.last.path) hl(sq, 'last');
    }
    for (const sq of state.captured || []) hl(sq, 'capture');
    if (state.selected) hl(state.selected, 'sel');
    for (const p of state.pieces) this.piece(p.square, p.piece);
    for (const sq of state.targets || []) {
      if (!this.cell.has(sq)) continue;
      const [cx, cy] = this.center(sq);
      svgEl('circle', { cx, cy, r: 9, class: 'dot' + (state.forced ? ' forced' : ''), 'data-target': sq }, svg);
    }
    for (const a of state.arrows || []) this.arrow(a);
  }

  piece(sq, code) {
    const [cx, cy] = this.center(sq);
    const color = code[0];
    const king = code.length > 1;
    const g = svgEl('g', { class: 'piece ' + color + (king ? ' king' : ''), 'data-square': sq, 'data-piece': code }, this.svg);
    svgEl('circle', { cx, cy, r: S * 0.4, 'stroke-width': 2 }, g);
    svgEl('circle', { cx, cy, r: S * 0.28, class: 'inner' }, g);
    if (king) {
      const w = 13;
      const pts = [[-w, 6], [-w, -5], [-w / 2, 1], [0, -9], [w / 2, 1], [w, -5], [w, 6]]
        .map(([dx, dy]) => (cx + dx) + ',' + (cy + dy)).join(' ');
      svgEl('polygon', { points: pts, class: 'crown' }, g);
    }
  }

  arrow(a) {
    const pts = a.squares.filter((sq) => this.cell.has(sq)).map((sq) => this.center(sq));
    if (pts.length < 2) return;
    const d = pts.map(([x, y], i) => (i ? 'L' : 'M') + x + ' ' + y).join(' ');
    svgEl('path', { d, class: 'arrow' + (a.best ? ' best' : ''), 'stroke-width': a.width,
      'marker-end': 'url(#' + this.svg.id + '-head)', 'data-arrow': a.squares.join('-') }, this.svg);
  }
}

// ---------------------------------------------------------------- shared

let INFO = null;
let BOTS = [];
const BOTS_OF = new Map();

// The bots of game `game` (cached for the page's life; a run's new
// generation reloads them).
async function botsOf(game, fresh) {
  if (!fresh && BOTS_OF.has(game)) return BOTS_OF.get(game);
  const r = await api('GET', '/api/bots?game=' + encodeURIComponent(game));
  BOTS_OF.set(game, r);
  return r;
}

function gameInfo(name) {
  return (INFO.games || []).find((g) => g.name === name);
}

function botById(id) {
  return BOTS.find((b) => b.id === id);
}

function fillBots(select, wanted, list) {
  const bots = list || BOTS;
  const keep = wanted || select.value;
  while (select.firstChild) select.removeChild(select.firstChild);
  for (const b of bots) select.appendChild(htmlEl('option', { value: b.id }, b.label));
  if (keep && bots.some((b) => b.id === keep)) select.value = keep;
  select.bots = bots;
}

// The strength inputs for the bot chosen in `select`, in `box`.
function strengthUi(select, box) {
  const draw = () => {
    while (box.firstChild) box.removeChild(box.firstChild);
    const bot = (select.bots || BOTS).find((b) => b.id === select.value);
    if (!bot || bot.strength === 'none') {
      box.appendChild(htmlEl('span', { class: 'note' }, 'this bot does not search'));
      return;
    }
    const unit = htmlEl('select', { class: 'unit' });
    const first = bot.strength === 'depth' ? 'depth' : 'sims';
    unit.appendChild(htmlEl('option', { value: first }, first === 'depth' ? 'depth (plies)' : 'simulations'));
    unit.appendChild(htmlEl('option', { value: 'time_ms' }, 'time (ms)'));
    const input = htmlEl('input', { type: 'number', min: '1', class: 'amount' });
    const d = bot.default || {};
    input.value = d[first] || (first === 'depth' ? 4 : 200);
    unit.addEventListener('change', () => {
      input.value = unit.value === 'time_ms' ? 1000 : (d[first] || (first === 'depth' ? 4 : 200));
    });
    box.appendChild(htmlEl('span', {}, 'Strength'));
    box.appendChild(unit);
    box.appendChild(input);
  };
  select.addEventListener('change', draw);
  draw();
  return () => {
    const unit = box.querySelector('.unit');
    const input = box.querySelector('.amount');
    if (!unit || !input || input.value === '') return {};
    return { [unit.value]: Number(input.value) };
  };
}

function moveList(ol, moves, current, onPick) {
  while (ol.firstChild) ol.removeChild(ol.firstChild);
  let li = null;
  moves.forEach((m, i) => {
    if (i % 2 === 0) {
      li = htmlEl('li');
      ol.appendChild(li);
    }
    const span = htmlEl('span', { class: 'mv' + (current === i + 1 ? ' current' : ''), 'data-ply': String(i + 1) }, m.text);
    if (onPick) span.addEventListener('click', () => onPick(i + 1));
    li.appendChild(span);
    li.appendChild(document.createTextNode(' '));
  });
  ol.scrollTop = ol.scrollHeight;
}

function pct(x) {
  return (100 * x).toFixed(1) + '%';
}

// ---------------------------------------------------------------- play

const play = {
  game: null,
  selected: null,
  busy: false,
  board: null,
  strength: null,
};

function playState() {
  const g = play.game;
  if (!g) return 'none';
  if (play.busy) return 'busy';
  if (g.thinking) return 'bot';
  return g.state;
}

function renderPlay() {
  const g = play.game;
  document.body.dataset.play = playState();
  if (!g) return;
  let targets = [];
  let forced = false;
  let from = null;
  if (g.state === 'human' && !play.busy) {
    from = g.pending ? g.pending.at : play.selected;
    if (from) targets = g.legal.filter((s) => s.from === from).map((s) => s.to);
    forced = !!g.pending && targets.length === 1;
  }
  play.board.setGeometry(g.geometry);
  const off = from ? g.legal.find((s) => s.from === from && s.to === 'off') : null;
  $('play-off').hidden = !off;
  play.board.draw({
    pieces: g.board,
    last: g.pending ? null : g.last,
    selected: from,
    targets,
    forced,
    captured: g.pending ? g.pending.captured : [],
  });
  moveList($('play-moves'), g.moves, null, null);
  $('play-record').value = g.record;
  let status;
  if (g.state === 'over') {
    status = 'Game over: ' + g.result + (g.reason ? ' (' + g.reason + ')' : '');
  } else if (g.state === 'bot' || g.thinking) {
    status = 'The bot (' + g.turn + ') is thinking…';
  } else if (g.pending) {
    const stop = g.legal.some((s) => s.from === g.pending.at && s.to === g.pending.at);
    status = 'Move in progress: go on from ' + g.pending.at +
      (stop ? ' (or click it again to stop there)' : ' (' + g.pending.remaining + ' more)');
  } else {
    const captures = g.legal.some((s) => s.captured);
    const me = g.geometry.sides.find((x) => x.key === g.human);
    status = 'Your move (' + (me ? me.name : g.human) + ')' + (captures ? ': you must capture' : '');
  }
  if (g.last && g.last.promotes && !g.pending) status += ' — ' + g.last.text + ' crowned a king';
  $('play-status').textContent = status;
  $('play-undo').disabled = play.busy || g.thinking;
  $('play-resign').disabled = play.busy || g.state === 'over' || g.thinking;
  const t = g.thought;
  $('play-thought').textContent = t ? describeThought(t) : '';
}

function describeThought(t) {
  const parts = ['bot played ' + t.best.text];
  if (t.eval) parts.push('eval ' + t.eval.value.toFixed(2) + ' (W/D/L ' + t.eval.wdl.map(pct).join(' / ') + ')');
  if (t.score_cm !== null && t.score_cm !== undefined) parts.push('score ' + (t.score_cm / 100).toFixed(2) + ' at depth ' + t.depth);
  if (t.pv.length > 1) parts.push('line ' + t.pv.map((m) => m.text).join(' '));
  parts.push(t.nodes + ' nodes in ' + Math.round(t.time_ms) + ' ms');
  return parts.join(' · ');
}

async function playRequest(method, path, body) {
  play.busy = true;
  renderPlay();
  try {
    play.game = await api(method, path, body);
    showError('');
  } catch (e) {
    showError(e.message);
    if (e.status === 404) play.game = null;
  } finally {
    play.busy = false;
  }
  renderPlay();
}

async function botTurn() {
  const g = play.game;
  if (!g || g.state !== 'bot' || g.thinking) return;
  for (let attempt = 0; attempt < 30; attempt++) {
    play.busy = true;
    renderPlay();
    try {
      play.game = await api('POST', '/api/games/' + g.id + '/bot');
      showError('');
      break;
    } catch (e) {
      showError(e.message);
      if (e.status !== 429) break;
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      play.busy = false;
    }
  }
  renderPlay();
}

async function newGame() {
  const rules = [];
  for (const input of document.querySelectorAll('#play-rules [data-rule]')) {
    if (input.value !== '') rules.push(input.dataset.rule + '=' + input.value.trim());
  }
  const game = $('play-game').value;
  const body = {
    game,
    human: $('play-side').value,
    bot: $('play-bot').value,
    strength: play.strength(),
    rules: $('play-rules').hidden ? $('play-rules-text').value.trim() : rules.join(' '),
  };
  if (!body.rules) delete body.rules;
  const setup = $('play-setup').value.trim();
  if (setup) body.position = setup;
  play.selected = null;
  await playRequest('POST', '/api/games', body);
  await botTurn();
}

async function clickPlay(sq, fromOverride) {
  const g = play.game;
  if (!g || g.state !== 'human' || play.busy || g.thinking) return;
  const from = fromOverride || (g.pending ? g.pending.at : play.selected);
  const step = from && g.legal.find((s) => s.from === from && s.to === sq);
  if (step) {
    await playRequest('POST', '/api/games/' + g.id + '/step', { from: step.from, to: step.to });
    play.selected = null;
    await botTurn();
    return;
  }
  if (g.pending) return;
  play.selected = g.legal.some((s) => s.from === sq) ? sq : null;
  renderPlay();
}

// The form of a game's rule options (`rule_options` of /api/info), in
// place of the last game's.
function rulesUi(options) {
  const box = $('play-rules');
  for (const old of Array.from(box.querySelectorAll('label'))) old.remove();
  for (const o of options) {
    const label = htmlEl('label', { title: o.about });
    label.appendChild(htmlEl('span', {}, o.key.replace(/_/g, ' ')));
    let input;
    if (o.values.choice) {
      input = htmlEl('select', { 'data-rule': o.key });
      for (const v of o.values.choice) input.appendChild(htmlEl('option', { value: v }, v.replace(/_/g, ' ')));
    } else {
      input = htmlEl('input', { type: 'text', 'data-rule': o.key, size: '5' });
      input.value = o.default;
      input.title = o.values.count.min + '..' + o.values.count.max + ' or off';
    }
    input.value = o.default;
    label.appendChild(input);
    box.appendChild(label);
  }
}

function download(name, text) {
  const a = htmlEl('a', { download: name });
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

// A network plays the rules it was trained under: choosing one sets the
// rule options to them (the player may still change the options, not the
// variant).
function rulesOfBot() {
  const b = ($('play-bot').bots || BOTS).find((x) => x.id === $('play-bot').value);
  if (!b || !b.rules) return;
  if ($('play-rules').hidden) {
    $('play-rules-text').value = b.rules;
    return;
  }
  const variant = document.querySelector('#play-rules [data-rule="variant"]');
  if (variant) variant.value = 'turkish';
  for (const pair of b.rules.split(/[\s,]+/)) {
    const [k, v] = pair.split('=');
    const input = document.querySelector('#play-rules [data-rule="' + k + '"]');
    if (input && v !== undefined) input.value = v;
  }
}

// The game chosen for the next new game: its sides, bots and rule options.
async function chooseGame() {
  const name = $('play-game').value;
  const info = gameInfo(name);
  if (!info) return;
  const side = $('play-side');
  const before = side.selectedIndex;
  while (side.firstChild) side.removeChild(side.firstChild);
  info.geometry.sides.forEach((x, i) => side.appendChild(htmlEl('option', { value: x.key }, x.name + (i === 0 ? ' (first side)' : ''))));
  side.selectedIndex = Math.max(0, before);
  // A game that lists its rule options gets their form, another a text
  // field.
  const options = info.rule_options || [];
  rulesUi(options);
  $('play-rules').hidden = options.length === 0;
  $('play-rules-label').hidden = options.length > 0;
  $('play-rules-text').value = '';
  $('play-rules-text').placeholder = info.default_rules;
  try {
    const r = await botsOf(name);
    fillBots($('play-bot'), r.default, r.bots);
    $('play-bot').dispatchEvent(new Event('change'));
    showError('');
  } catch (e) {
    showError(e.message);
  }
}

function initPlay() {
  play.board = new Board($('play-board'), clickPlay);
  for (const g of INFO.games || []) $('play-game').appendChild(htmlEl('option', { value: g.name }, g.title));
  $('play-game').value = INFO.default_game;
  $('play-game').addEventListener('change', chooseGame);
  $('play-off').addEventListener('click', () => {
    const g = play.game;
    const from = g && (g.pending ? g.pending.at : play.selected);
    if (from) clickPlay('off', from);
  });
  play.strength = strengthUi($('play-bot'), $('play-strength'));
  rulesUi(INFO.rules);
  rulesOfBot();
  $('play-bot').addEventListener('change', rulesOfBot);
  $('play-new').addEventListener('click', newGame);
  $('play-undo').addEventListener('click', () => play.game && playRequest('POST', '/api/games/' + play.game.id + '/undo'));
  $('play-resign').addEventListener('click', () => play.game && playRequest('POST', '/api/games/' + play.game.id + '/resign'));
  $('play-flip').addEventListener('click', () => {
    play.board.flipped = !play.board.flipped;
    renderPlay();
  });
  $('play-copy').addEventListener('click', async () => {
    const text = $('play-record').value;
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      $('play-record').select();
      document.execCommand('copy');
    }
  });
  $('play-download').addEventListener('click', () => download('dama-game.pdn', $('play-record').value));
  $('play-to-analysis').addEventListener('click', () => {
    if (!play.game) return;
    $('an-input').value = play.game.record;
    selectTab('analyse');
    loadAnalysis();
  });
  $('play-side').addEventListener('change', () => {
    play.board.flipped = $('play-side').selectedIndex === 1;
  });
}

// ---------------------------------------------------------------- analyse

const an = { board: null, frames: [], record: '', ply: 0, strength: null, seq: 0 };

function renderAnalysisBoard(arrows) {
  const f = an.frames[an.ply];
  if (!f) return;
  an.board.setGeometry(an.geometry);
  an.board.draw({ pieces: f.board, last: f.last, arrows: arrows || [] });
  $('an-ply').textContent = an.ply + ' / ' + (an.frames.length - 1);
  moveList($('an-moves'), an.frames.slice(1).map((x) => x.last), an.ply, (p) => gotoPly(p));
}

async function loadAnalysis() {
  const text = $('an-input').value.trim() || 'startpos';
  try {
    const body = { position: text };
    const rules = $('an-rules').value.trim();
    if (rules) body.rules = rules;
    const r = await api('POST', '/api/replay', body);
    if (r.game !== an.game) {
      an.game = r.game;
      const bots = await botsOf(r.game);
      fillBots($('an-bot'), $('an-bot').value || bots.default, bots.bots);
      $('an-bot').dispatchEvent(new Event('change'));
    }
    an.geometry = r.geometry;
    an.frames = r.frames;
    an.record = r.record;
    an.rules = rules;
    an.ply = r.frames.length - 1;
    showError('');
    gotoPly(an.ply);
  } catch (e) {
    showError(e.message);
  }
}

function gotoPly(p) {
  if (!an.frames.length) return;
  an.ply = Math.max(0, Math.min(an.frames.length - 1, p));
  clearAnalysis();
  renderAnalysisBoard();
  if ($('an-auto').checked && !$('tab-analyse').hidden) analyse();
}

function clearAnalysis() {
  $('an-wdl').textContent = '';
  $('an-pv').textContent = '';
  const body = $('an-top').querySelector('tbody');
  while (body.firstChild) body.removeChild(body.firstChild);
  setEvalBar(null);
}

function setEvalBar(whiteValue) {
  const v = whiteValue === null ? 0 : Math.max(-1, Math.min(1, whiteValue));
  $('an-evalfill').style.height = ((1 + v) / 2 * 100).toFixed(1) + '%';
  $('an-evaltext').textContent = whiteValue === null ? '' : (v >= 0 ? '+' : '') + v.toFixed(2);
}

async function analyse() {
  if (!an.frames.length) return;
  const seq = ++an.seq;
  const frame = an.frames[an.ply];
  $('an-status').textContent = 'thinking…';
  document.body.dataset.analyse = 'busy';
  try {
    const body = { game: an.game, position: an.record, ply: an.ply, bot: $('an-bot').value, strength: an.strength() };
    const r = await api('POST', '/api/analyse', body);
    if (seq !== an.seq) return;
    showError('');
    showAnalysis(r, frame);
    $('an-status').textContent = describeThought(r.thought).replace(/^bot played/, 'best');
  } catch (e) {
    if (seq !== an.seq) return;
    $('an-status').textContent = e.message;
  } finally {
    if (seq === an.seq) document.body.dataset.analyse = 'done';
  }
}

function showAnalysis(r, frame) {
  const t = r.thought;
  const ev = t.eval || t.network;
  let value = null;
  if (ev) value = ev.value;
  else if (t.score_cm !== null && t.score_cm !== undefined) value = Math.tanh(t.score_cm / 300);
  const first = an.geometry ? an.geometry.sides[0].key : 'white';
  const white = value === null ? null : (frame.turn === first ? value : -value);
  setEvalBar(white);
  if (ev) {
    $('an-wdl').textContent = r.turn + ' to move: win ' + pct(ev.wdl[0]) + ' · draw ' + pct(ev.wdl[1]) + ' · loss ' + pct(ev.wdl[2]) +
      (t.eval && t.network ? ' (network alone: ' + t.network.value.toFixed(2) + ')' : '');
  } else if (value !== null) {
    $('an-wdl').textContent = r.turn + ' to move: score ' + (t.score_cm / 100).toFixed(2) + ' men at depth ' + t.depth;
  } else {
    $('an-wdl').textContent = 'this bot gives no evaluation';
  }
  $('an-pv').textContent = 'line: ' + t.pv.map((m) => m.text).join(' ');
  const body = $('an-top').querySelector('tbody');
  const top = t.top.length ? t.top : [{ move: t.best, visits: null, share: 1, prior: null, value: null }];
  for (const m of top.slice(0, 12)) {
    const tr = htmlEl('tr');
    tr.appendChild(htmlEl('td', {}, m.move.text));
    tr.appendChild(htmlEl('td', {}, m.visits === null ? '' : String(m.visits)));
    tr.appendChild(htmlEl('td', {}, pct(m.share)));
    tr.appendChild(htmlEl('td', {}, m.prior === null ? '' : pct(m.prior)));
    tr.appendChild(htmlEl('td', {}, m.value === null || m.value === undefined ? '' : m.value.toFixed(2)));
    body.appendChild(tr);
  }
  const arrows = top.slice(0, 5).map((m, i) => ({
    squares: [m.move.from].concat(m.move.path),
    width: 4 + 10 * m.share,
    best: i === 0,
  }));
  renderAnalysisBoard(arrows);
}

function initAnalyse() {
  an.board = new Board($('an-board'), null);
  an.strength = strengthUi($('an-bot'), $('an-strength'));
  $('an-load').addEventListener('click', loadAnalysis);
  $('an-go').addEventListener('click', analyse);
  $('an-first').addEventListener('click', () => gotoPly(0));
  $('an-prev').addEventListener('click', () => gotoPly(an.ply - 1));
  $('an-next').addEventListener('click', () => gotoPly(an.ply + 1));
  $('an-last').addEventListener('click', () => gotoPly(an.frames.length - 1));
  document.addEventListener('keydown', (ev) => {
    if ($('tab-analyse').hidden || ev.target.tagName === 'TEXTAREA' || ev.target.tagName === 'INPUT') return;
    if (ev.key === 'ArrowLeft') gotoPly(an.ply - 1);
    if (ev.key === 'ArrowRight') gotoPly(an.ply + 1);
  });
}

// ---------------------------------------------------------------- charts

const PALETTE = ['#1565c0', '#c62828', '#2e7d32', '#ef6c00', '#6a1b9a', '#00838f', '#5d4037', '#ad1457'];

function niceTicks(lo, hi, n) {
  if (!(hi > lo)) { hi = lo + 1; lo = lo - 1; }
  const raw = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(t);
  return ticks;
}

function fmt(v) {
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1);
  return String(Math.round(v * 1000) / 1000);
}

// series: [{name, points: [{x, y, lo, hi}]}]
function chart(svg, series, opts) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const W = 420, H = 240, L = 52, R = 10, T = 10, B = 40;
  const all = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  svg.dataset.points = String(all.length);
  if (!all.length) {
    svgEl('text', { x: W / 2 - 40, y: H / 2, class: 'empty' }, svg).textContent = 'no data yet';
    return;
  }
  let x0 = Math.min(...all.map((p) => p.x)), x1 = Math.max(...all.map((p) => p.x));
  const ys = all.flatMap((p) => [p.y, p.lo, p.hi]).filter(Number.isFinite);
  let y0 = Math.min(...ys), y1 = Math.max(...ys);
  if (opts && opts.zero) { y0 = Math.min(0, y0); y1 = Math.max(0, y1); }
  if (x1 === x0) { x0 -= 1; x1 += 1; }
  if (y1 === y0) { const d = Math.abs(y0) * 0.1 || 1; y0 -= d; y1 += d; }
  const pad = (y1 - y0) * 0.05; y0 -= pad; y1 += pad;
  const sx = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  for (const t of niceTicks(y0, y1, 5)) {
    svgEl('line', { x1: L, x2: W - R, y1: sy(t), y2: sy(t), class: 'grid' }, svg);
    svgEl('text', { x: 2, y: sy(t) + 3, class: 'tick' }, svg).textContent = fmt(t);
  }
  for (const t of niceTicks(x0, x1, 6)) {
    svgEl('text', { x: sx(t) - 6, y: H - B + 14, class: 'tick' }, svg).textContent = fmt(t);
  }
  svgEl('line', { x1: L, x2: L, y1: T, y2: H - B, class: 'axis' }, svg);
  svgEl('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }, svg);
  svgEl('text', { x: W / 2 - 20, y: H - 12, class: 'tick' }, svg).textContent = (opts && opts.xlabel) || '';
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if (!pts.length) return;
    svgEl('polyline', { points: pts.map((p) => sx(p.x) + ',' + sy(p.y)).join(' '), class: 'series', stroke: color, 'data-series': s.name }, svg);
    for (const p of pts) {
      if (Number.isFinite(p.lo) && Number.isFinite(p.hi)) {
        svgEl('line', { x1: sx(p.x), x2: sx(p.x), y1: sy(p.lo), y2: sy(p.hi), stroke: color, 'stroke-width': 1.5, class: 'errbar' }, svg);
      }
      if (pts.length < 60) svgEl('circle', { cx: sx(p.x), cy: sy(p.y), r: 2.5, fill: color }, svg);
    }
    const lx = L + 8 + (i % 3) * 120, ly = T + 10 + Math.floor(i / 3) * 12;
    svgEl('rect', { x: lx, y: ly - 7, width: 10, height: 3, fill: color }, svg);
    svgEl('text', { x: lx + 14, y: ly - 2, class: 'legend' }, svg).textContent = s.name;
  });
}

// ---------------------------------------------------------------- training

const tr = { run: null, events: [], next: 0, source: null, games: [], frames: [], ply: 0, board: null, timer: null };

function num(v) {
  return v === null || v === undefined ? NaN : Number(v);
}

function drawCharts() {
  const train = tr.events.filter((e) => e.kind === 'train');
  const evals = tr.events.filter((e) => e.kind === 'eval');
  const sp = tr.events.filter((e) => e.kind === 'selfplay');
  const line = (events, key, x) => events.map((e) => ({ x: num(e[x]), y: num(e[key]) }));
  chart($('chart-loss'), [
    { name: 'total', points: line(train, 'loss', 'step') },
    { name: 'policy', points: line(train, 'policy_loss', 'step') },
    { name: 'value', points: line(train, 'value_loss', 'step') },
  ], { xlabel: 'step' });
  chart($('chart-lr'), [{ name: 'learning rate', points: line(train, 'lr', 'step') }], { xlabel: 'step', zero: true });
  const byOpponent = new Map();
  for (const e of evals) {
    if (!byOpponent.has(e.opponent)) byOpponent.set(e.opponent, []);
    byOpponent.get(e.opponent).push({ x: num(e.generation), y: num(e.elo), lo: num(e.elo_lo), hi: num(e.elo_hi) });
  }
  chart($('chart-elo'), [...byOpponent].map(([name, points]) => ({ name: 'vs ' + name, points })), { xlabel: 'generation', zero: true });
  chart($('chart-speed'), [{ name: 'positions/s', points: line(sp, 'positions_per_sec', 'generation') }], { xlabel: 'generation', zero: true });
  chart($('chart-length'), [{ name: 'moves per game', points: line(sp, 'avg_game_length', 'generation') }], { xlabel: 'generation', zero: true });
  chart($('chart-draws'), [
    { name: 'draw rate', points: line(sp, 'draw_rate', 'generation') },
    { name: 'first-player score', points: line(sp, 'first_player_score', 'generation') },
  ], { xlabel: 'generation', zero: true });
}

async function loadRuns() {
  try {
    const r = await api('GET', '/api/runs');
    const ul = $('run-list');
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    $('runs-none').hidden = r.runs.length > 0;
    for (const run of r.runs) {
      const b = htmlEl('button', { type: 'button', 'data-run': run.name, class: run.name === tr.run ? 'active' : '' },
        run.name + (run.generation !== null ? ' (gen ' + run.generation + ')' : '') + (run.active ? ' ●' : ''));
      b.addEventListener('click', () => openRun(run.name));
      ul.appendChild(htmlEl('li')).appendChild(b);
    }
    if (!tr.run && r.runs.length === 1) openRun(r.runs[0].name);
  } catch (e) {
    showError(e.message);
  }
}

async function openRun(name) {
  if (tr.source) { tr.source.close(); tr.source = null; }
  tr.run = name;
  tr.events = [];
  tr.next = 0;
  for (const b of document.querySelectorAll('#run-list button')) b.classList.toggle('active', b.dataset.run === name);
  $('run-view').hidden = false;
  $('run-title').textContent = name;
  try {
    const info = await api('GET', '/api/runs/' + encodeURIComponent(name));
    if (tr.run !== name) return;
    $('run-config').textContent = info.config || '(no config.toml)';
    showLadder(info.ladder);
    const sel = $('games-gen');
    while (sel.firstChild) sel.removeChild(sel.firstChild);
    for (const g of info.game_generations) sel.appendChild(htmlEl('option', { value: String(g) }, 'generation ' + g));
    if (info.game_generations.length) loadGames();
    // Every event so far, then the live stream from where they end.
    for (let i = 0; i < 1000; i++) {
      const m = await api('GET', '/api/runs/' + encodeURIComponent(name) + '/metrics?from=' + tr.next);
      if (tr.run !== name) return;
      tr.events.push(...m.events);
      const done = m.next === tr.next || m.events.length === 0;
      tr.next = m.next;
      if (done) break;
    }
    drawCharts();
    document.body.dataset.run = name;
    listen(name);
    showError('');
  } catch (e) {
    showError(e.message);
  }
}

function listen(name) {
  const es = new EventSource('/api/runs/' + encodeURIComponent(name) + '/live?from=' + tr.next);
  tr.source = es;
  $('run-live').textContent = 'live';
  es.addEventListener('metrics', (ev) => {
    if (tr.run !== name) return;
    const d = JSON.parse(ev.data);
    tr.events.push(...d.events);
    tr.next = d.next;
    drawCharts();
    $('run-live').textContent = 'live · ' + tr.events.length + ' events';
    if (d.events.some((e) => e.kind === 'generation')) refreshRun(name);
  });
  es.onerror = () => { $('run-live').textContent = 'reconnecting…'; };
}

async function refreshRun(name) {
  try {
    const info = await api('GET', '/api/runs/' + encodeURIComponent(name));
    if (tr.run !== name) return;
    showLadder(info.ladder);
    const sel = $('games-gen');
    const have = new Set([...sel.options].map((o) => o.value));
    for (const g of info.game_generations) {
      if (!have.has(String(g))) sel.appendChild(htmlEl('option', { value: String(g) }, 'generation ' + g));
    }
    loadBots();
  } catch (e) {
    showError(e.message);
  }
}

function showLadder(ladder) {
  const body = $('ladder').querySelector('tbody');
  while (body.firstChild) body.removeChild(body.firstChild);
  $('ladder-none').hidden = !!ladder;
  if (!ladder) return;
  for (const r of ladder.ratings) {
    const row = htmlEl('tr');
    row.appendChild(htmlEl('td', {}, r.name));
    row.appendChild(htmlEl('td', {}, Number.isFinite(r.elo) ? r.elo.toFixed(0) : '—'));
    row.appendChild(htmlEl('td', {}, Number.isFinite(r.lo) ? r.lo.toFixed(0) + ' … ' + r.hi.toFixed(0) : ''));
    row.appendChild(htmlEl('td', {}, String(r.games)));
    row.appendChild(htmlEl('td', {}, String(r.points)));
    body.appendChild(row);
  }
}

async function loadGames() {
  const gen = $('games-gen').value;
  if (gen === '') return;
  try {
    const r = await api('GET', '/api/runs/' + encodeURIComponent(tr.run) + '/games/' + gen);
    const body = $('games-list').querySelector('tbody');
    while (body.firstChild) body.removeChild(body.firstChild);
    for (const g of r.games) {
      const row = htmlEl('tr', { 'data-index': String(g.index) });
      row.appendChild(htmlEl('td', {}, String(g.index + 1)));
      row.appendChild(htmlEl('td', {}, String(g.length)));
      row.appendChild(htmlEl('td', {}, g.result));
      row.appendChild(htmlEl('td', {}, g.termination));
      row.addEventListener('click', () => openGame(gen, g.index, row));
      body.appendChild(row);
    }
  } catch (e) {
    showError(e.message);
  }
}

async function openGame(gen, index, row) {
  try {
    const r = await api('GET', '/api/runs/' + encodeURIComponent(tr.run) + '/games/' + gen + '/' + index);
    for (const x of document.querySelectorAll('#games-list tr')) x.classList.remove('current');
    if (row) row.classList.add('current');
    tr.frames = r.frames;
    tr.record = r.record;
    tr.board.setGeometry(r.geometry);
    replayTo(0);
  } catch (e) {
    showError(e.message);
  }
}

function replayTo(p) {
  if (!tr.frames.length) return;
  tr.ply = Math.max(0, Math.min(tr.frames.length - 1, p));
  const f = tr.frames[tr.ply];
  tr.board.draw({ pieces: f.board, last: f.last });
  $('replay-info').textContent = tr.ply + ' / ' + (tr.frames.length - 1) + (f.last ? '  ' + f.last.text : '');
}

function initTrain() {
  tr.board = new Board($('replay-board'), null);
  $('games-gen').addEventListener('change', loadGames);
  $('replay-first').addEventListener('click', () => replayTo(0));
  $('replay-prev').addEventListener('click', () => replayTo(tr.ply - 1));
  $('replay-next').addEventListener('click', () => replayTo(tr.ply + 1));
  $('replay-last').addEventListener('click', () => replayTo(tr.frames.length - 1));
  $('replay-play').addEventListener('click', () => {
    if (tr.timer) { clearInterval(tr.timer); tr.timer = null; $('replay-play').textContent = 'play'; return; }
    $('replay-play').textContent = 'pause';
    tr.timer = setInterval(() => {
      if (tr.ply >= tr.frames.length - 1) { clearInterval(tr.timer); tr.timer = null; $('replay-play').textContent = 'play'; return; }
      replayTo(tr.ply + 1);
    }, 600);
  });
}

// ---------------------------------------------------------------- tabs

function selectTab(name) {
  for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.tab === name);
  for (const p of document.querySelectorAll('.page')) p.hidden = p.id !== 'tab-' + name;
  if (name === 'train') loadRuns();
  if (name === 'analyse' && an.frames.length && $('an-auto').checked) analyse();
  if (location.hash !== '#' + name) history.replaceState(null, '', '#' + name);
}

async function loadBots() {
  for (const [id, game] of [['play-bot', $('play-game').value], ['an-bot', an.game || INFO.default_game]]) {
    const r = await botsOf(game, true);
    const sel = $(id);
    const before = sel.value;
    fillBots(sel, before || r.default, r.bots);
    if (sel.value !== before) sel.dispatchEvent(new Event('change'));
  }
}

async function main() {
  try {
    INFO = await api('GET', '/api/info');
    const r = await botsOf(INFO.default_game || 'draughts');
    BOTS = r.bots;
    fillBots($('play-bot'), r.default, r.bots);
    fillBots($('an-bot'), r.default, r.bots);
    an.game = INFO.default_game;
  } catch (e) {
    showError('cannot reach the server: ' + e.message);
    return;
  }
  initPlay();
  await chooseGame();
  initAnalyse();
  initTrain();
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => selectTab(b.dataset.tab));
  const tab = (location.hash || '#play').slice(1);
  selectTab(['play', 'analyse', 'train'].includes(tab) ? tab : 'play');
  $('an-input').value = 'startpos';
  await loadAnalysis();
  await newGame();
  document.body.dataset.ready = 'yes';
}

main();
