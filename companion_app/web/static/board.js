/* The board drawn to scale as SVG, and the monster's plan animated step by step.
 *
 * Everything drawn comes from two JSON documents the server sends: the board's
 * fixed geometry (/api/board) and a position "setup" (SCENARIOS.md).  The
 * animation replays the events of the engine's plan (enter, push, eat, wrap,
 * teleport, pivot); it never decides where the monster goes.
 */
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const PITCH = 30;           // one square = 30 units = 30 mm on the real board
const MARGIN = 14;          // room for the wall letters
const HEADING = { N: 0, E: 90, S: 180, W: 270 };
const N_ = (message) => message;   // marks a msgid for the catalog; t() translates it where it is shown

// The pieces' names in the page's language (a stone's <title>, the referee's lists), as /api/board sends
// them from their one home (engine/names.py).
let PIECE_NAMES = {};
// Each player colour's fill, number ink and shape (companion_app/palette.py, sent with /api/board): the
// shape tells whose pawn it is without colour (issue 28).
let PLAYER_MARKS = {};
const ARROWS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
// what a highlighted square means, for a screen reader (the board's classes)
const SQUARE_STATES = { target: N_("the pawn can go here"), diff: N_("the camera sees something else"),
  "to-empty": N_("take the piece off"), "to-fill": N_("put a piece here"), fixed: N_("fixed by hand"),
  unseen: N_("the camera cannot see it"), "sim-from": N_("the piece to move") };

/* Reduced motion (the reader's system setting): no travel, no flashes. */
function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/* A pawn's outline in its colour's shape, ``r`` its radius: a circle or a polygon. */
function pawnShape(colour, r, attrs, parent) {
  const mark = PLAYER_MARKS[colour];
  if (!mark || !mark.points) return el("circle", Object.assign({ r }, attrs), parent);
  const d = "M" + mark.points.map(([x, y]) => `${(x * r).toFixed(2)} ${(y * r).toFixed(2)}`).join(" L") + " Z";
  return el("path", Object.assign({ d, "stroke-linejoin": "round" }, attrs), parent);
}

/* A colour's mark for buttons and lists: a small picture of its pawn's shape, beside the colour's name;
 * ``onColour``: drawn on a background of that colour, so in its ink. */
function colourMark(colour, onColour) {
  const mark = PLAYER_MARKS[colour] || {};
  const svg = el("svg", { viewBox: "-15 -15 30 30", class: "mark", "aria-hidden": "true", focusable: "false" });
  pawnShape(colour, 11, { fill: (onColour ? mark.ink : mark.fill) || "#999",
                          class: `mark-shape colour-${colour}${onColour ? " on-colour" : ""}` }, svg);
  return svg;
}

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function sqXY(board, name) {
  const s = board.byName[name];
  return { x: s.col * PITCH, y: s.row * PITCH };
}

function pawnValue(p) {
  const [black, white] = (p.pawn || "?/?").split("/");
  return p.face === "black" ? black : white;
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

class FlureBoard {
  constructor(container, board, options) {
    this.board = board;
    board.byName = {};
    for (const s of board.squares) board.byName[s.name] = s;
    PLAYER_MARKS = board.players || {};
    PIECE_NAMES = board.pieces || {};
    this.options = Object.assign({ stepMs: 650, onSquare: null, onStep: null }, options || {});
    const w = board.cols * PITCH, h = board.rows * PITCH;
    // where the referee acts on squares, each square is a button (arrow keys move between them)
    this.svg = el("svg", {
      viewBox: `${-MARGIN} ${-MARGIN} ${w + 2 * MARGIN} ${h + 2 * MARGIN}`,
      class: "board", role: this.options.onSquare ? "group" : "img", "aria-label": t("The board"),
    });
    container.appendChild(this.svg);
    this.layers = {};
    for (const name of ["floor", "marks", "pieces", "path", "monster", "fx", "focus"]) {
      this.layers[name] = el("g", { class: `layer-${name}` }, this.svg);
    }
    this._drawFloor();
    this.pieceNodes = {};
    this.setup = null;
    this.animating = null;
  }

  _drawFloor() {
    const b = this.board, g = this.layers.floor;
    el("rect", { x: -MARGIN, y: -MARGIN, width: b.cols * PITCH + 2 * MARGIN,
                 height: b.rows * PITCH + 2 * MARGIN, rx: 8, class: "wall" }, g);
    for (const s of b.squares) {
      const r = el("rect", { x: s.col * PITCH + 0.6, y: s.row * PITCH + 0.6, width: PITCH - 1.2,
                             height: PITCH - 1.2, rx: 2.5, class: "sq", "data-square": s.name }, g);
      if (s.name === b.exit) r.classList.add("exit");
      if (s.name === b.entrance) r.classList.add("entrance");
      r.addEventListener("click", () => this.options.onSquare && this.options.onSquare(s.name));
      if (this.options.onSquare) {
        r.setAttribute("role", "button");
        r.setAttribute("tabindex", s === b.squares[0] ? "0" : "-1");   // one tab stop: the arrows do the rest
        r.setAttribute("aria-label", s.name);
      }
      // the square's name (g7), so players can follow logs that name squares
      el("text", { x: s.col * PITCH + 2.5, y: s.row * PITCH + 7.5, class: "sq-name" }, g).textContent = s.name;
    }
    const ex = sqXY(b, b.exit), en = sqXY(b, b.entrance);
    el("text", { x: ex.x + PITCH / 2, y: ex.y + PITCH - 4, class: "corner-label" }, g).textContent = t("EXIT");
    el("text", { x: en.x + PITCH / 2, y: en.y + PITCH - 4, class: "corner-label" }, g).textContent = t("IN");
    if (this.options.onSquare) this._keyboard();
    for (const w of b.walls) {
      const p = sqXY(b, w.square);
      const off = { N: [PITCH / 2, -5], S: [PITCH / 2, PITCH + 9], E: [PITCH + 6, PITCH / 2 + 3],
                    W: [-6, PITCH / 2 + 3] }[w.side];
      el("text", { x: p.x + off[0], y: p.y + off[1], class: "wall-letter" }, g).textContent = w.letter;
    }
  }

  /* The squares by keyboard: arrows move (skipping the holes in the grid), Home/End go to the row's
   * ends, Enter or Space act as a tap; a ring drawn over the pieces shows the focused square. */
  _keyboard() {
    const b = this.board, at = {};
    for (const s of b.squares) at[`${s.col},${s.row}`] = s.name;
    const ring = el("rect", { width: PITCH, height: PITCH, rx: 3, class: "focus-ring hidden" }, this.layers.focus);
    const square = (node) => node && node.dataset && node.classList.contains("sq") ? node.dataset.square : null;
    this.svg.addEventListener("focusin", (e) => {
      const name = square(e.target);
      if (!name || !e.target.matches(":focus-visible")) return;   // the keyboard's focus, not a tap's
      const p = sqXY(b, name);
      ring.setAttribute("x", p.x); ring.setAttribute("y", p.y);
      ring.classList.remove("hidden");
    });
    this.svg.addEventListener("focusout", () => ring.classList.add("hidden"));
    this.svg.addEventListener("keydown", (e) => {
      const name = square(e.target);
      if (!name) return;
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        this.options.onSquare(name);
        return;
      }
      const s = b.byName[name];
      let next = null;
      if (ARROWS[e.key]) {
        const [dx, dy] = ARROWS[e.key];
        for (let c = s.col + dx, r = s.row + dy; c >= 0 && r >= 0 && c < b.cols && r < b.rows && !next; c += dx, r += dy) {
          next = at[`${c},${r}`] || null;
        }
      } else if (e.key === "Home" || e.key === "End") {
        const row = b.squares.filter((q) => q.row === s.row);
        next = (e.key === "Home" ? row[0] : row[row.length - 1]).name;
      } else {
        return;
      }
      e.preventDefault();
      if (next) this.focusSquare(next);
    });
  }

  /* Move the board's one tab stop to ``name`` and focus it. */
  focusSquare(name) {
    const node = this.svg.querySelector(`.sq[data-square="${name}"]`);
    if (!node) return;
    for (const n of this.svg.querySelectorAll('.sq[tabindex="0"]')) n.setAttribute("tabindex", "-1");
    node.setAttribute("tabindex", "0");
    node.focus();
  }

  /* Each square's name for a screen reader: where, what stands there, what its highlight means. */
  _labelSquares() {
    if (!this.options.onSquare) return;
    const what = {};
    for (const node of this.layers.pieces.children) {
      const title = node.querySelector("title");
      if (title) what[node.dataset.square] = title.textContent;
    }
    if (this.monsterNode) what[this.monsterAt] = t("the monster");
    const pools = new Set((this.setup && this.setup.pools) || []);
    const teleporters = (this.setup && this.setup.teleporters) || {};
    for (const node of this.layers.floor.querySelectorAll(".sq")) {
      const name = node.dataset.square;
      const parts = [name];
      if (name === this.board.exit) parts.push(t("exit"));
      if (name === this.board.entrance) parts.push(t("entrance"));
      if (pools.has(name)) parts.push(t("pool"));
      if (teleporters[name]) parts.push(pieceName("teleporter"));
      if (what[name]) parts.push(what[name]);
      for (const [cls, text] of Object.entries(SQUARE_STATES)) if (node.classList.contains(cls)) parts.push(t(text));
      node.setAttribute("aria-label", parts.join(", "));
    }
  }

  /* Draw a whole position (no animation). */
  draw(setup) {
    this.clearPath();     // a path belongs to the position it was drawn on (a new game has none)
    this.setup = JSON.parse(JSON.stringify(setup));
    const marks = this.layers.marks, pieces = this.layers.pieces;
    marks.textContent = "";
    pieces.textContent = "";
    this.pieceNodes = {};
    for (const sq of setup.pools || []) {
      const p = sqXY(this.board, sq);
      el("rect", { x: p.x + 1, y: p.y + 1, width: PITCH - 2, height: PITCH - 2, rx: 4, class: "pool" }, marks);
    }
    for (const [sq, t] of Object.entries(setup.teleporters || {})) this._teleporter(sq, t, marks);
    for (const [sq, kind] of Object.entries(setup.stones || {})) this._put(sq, this._stone(kind));
    for (const [label, p] of Object.entries(setup.pawns || {})) {
      if (p.at) this._put(p.at, this._pawn(label, p));
    }
    this._monster(setup.monster.at, setup.monster.facing);
    this._labelSquares();
  }

  _put(sq, node) {
    const p = sqXY(this.board, sq);
    node.setAttribute("transform", `translate(${p.x + PITCH / 2} ${p.y + PITCH / 2})`);
    node.dataset.square = sq;
    this.layers.pieces.appendChild(node);
    this.pieceNodes[sq] = node;
  }

  _stone(kind) {
    const g = el("g", { class: `piece stone ${kind}` });
    if (kind === "crystal") {
      el("path", { d: "M0 -11 L10 0 L0 11 L-10 0 Z", class: "crystal-body" }, g);
      el("path", { d: "M0 -11 L3 0 L0 11 M-10 0 L10 0", class: "crystal-facet" }, g);
    } else {
      el("rect", { x: -11, y: -11, width: 22, height: 22, rx: 4, class: "stone-body" }, g);
      // the road-sign arrows: a quarter turn to the right (↱), and a U-turn
      if (kind === "pivot-right") el("path", { d: "M-4 7 V0 A5 5 0 0 1 1 -5 H7 M3.5 -8.5 L7 -5 L3.5 -1.5", class: "pivot-mark" }, g);
      if (kind === "pivot-about") el("path", { d: "M-5 7 V-1 A5 5 0 0 1 5 -1 V6 M1.5 2.5 L5 6 L8.5 2.5", class: "pivot-mark" }, g);
    }
    el("title", {}, g).textContent = pieceName(kind);
    return g;
  }

  _pawn(label, p) {
    const g = el("g", { class: `piece pawn face-${p.face}`, "data-pawn": label });
    const mark = PLAYER_MARKS[p.color] || {};
    pawnShape(p.color, 11, { fill: mark.fill || "#999", class: `pawn-body colour-${p.color}` }, g);
    if (p.face === "black") pawnShape(p.color, 8, { class: "pawn-black-face" }, g);
    // the number in the ink that reads on the pawn (palette.py), white on a black face
    el("text", { y: 4.5, fill: p.face === "black" ? "#ffffff" : mark.ink || "#ffffff",
                 class: `pawn-value colour-${p.color} face-${p.face}` }, g).textContent = pawnValue(p);
    el("title", {}, g).textContent = t("%(colour)s %(pawn)s, %(face)s face up",
      { colour: t(p.color), pawn: p.pawn, face: t(p.face) });
    return g;
  }

  _teleporter(sq, t, parent) {
    const p = sqXY(this.board, sq);
    const g = el("g", { class: "teleporter", transform: `translate(${p.x + PITCH / 2} ${p.y + PITCH / 2})` }, parent);
    el("circle", { r: 12.5, class: `tele-ring pair-${t.pair}` }, g);
    el("path", { d: "M0 -9 L5 -2 L2 -2 L2 7 L-2 7 L-2 -2 L-5 -2 Z", class: "tele-arrow",
                 transform: `rotate(${HEADING[t.arrow]})` }, g);
    el("text", { x: 9, y: 12, class: "tele-pair" }, g).textContent = t.pair;
  }

  _monster(sq, facing) {
    const layer = this.layers.monster;
    if (!this.monsterNode) {
      const g = el("g", { class: "monster" }, layer);
      const body = el("g", { class: "monster-body" }, g);
      el("path", { d: "M0 -13 L11 9 Q0 4 -11 9 Z", class: "monster-shape" }, body);
      el("circle", { cx: -4, cy: 0, r: 2.2, class: "monster-eye" }, body);
      el("circle", { cx: 4, cy: 0, r: 2.2, class: "monster-eye" }, body);
      el("title", {}, g).textContent = t("the monster");
      this.monsterNode = g;
      this.monsterBody = body;
    }
    this.monsterAt = sq;
    this.monsterFacing = facing;
    const p = sqXY(this.board, sq);
    this.monsterNode.setAttribute("transform", `translate(${p.x + PITCH / 2} ${p.y + PITCH / 2})`);
    this.monsterNode.dataset.square = sq;
    this.monsterNode.dataset.facing = facing;
    this.monsterBody.setAttribute("transform", `rotate(${HEADING[facing]})`);
  }

  /* Highlight squares: {g7: "diff", k5: "target"}; clears earlier highlights of the same classes. */
  highlight(map, classes) {
    for (const c of classes) {
      for (const n of this.svg.querySelectorAll(`.sq.${c}`)) n.classList.remove(c);
    }
    for (const [sq, cls] of Object.entries(map)) {
      const n = this.svg.querySelector(`.sq[data-square="${sq}"]`);
      if (n) n.classList.add(cls);
    }
    this._labelSquares();
  }

  clearPath() { this.layers.path.textContent = ""; this.layers.fx.textContent = ""; }

  /* Number badges and a trail over every square the monster ends a step on. */
  drawPathMarks(plan, upTo) {
    this.clearPath();
    const g = this.layers.path;
    let prev = sqXY(this.board, plan.start.at);
    for (const step of plan.steps) {
      if (step.number > upTo) break;
      const p = sqXY(this.board, step.to);
      const jumped = step.events.some((e) => e.kind === "wrap" || e.kind === "teleport");
      if (!jumped) {
        el("line", { x1: prev.x + PITCH / 2, y1: prev.y + PITCH / 2, x2: p.x + PITCH / 2, y2: p.y + PITCH / 2,
                     class: "trail" }, g);
      }
      prev = p;
      for (const ev of step.events) {
        if (ev.kind !== "eat" && !(ev.kind === "push" && !ev.to)) continue;
        const q = sqXY(this.board, ev.square || ev.from);   // eaten, crushed or destroyed here
        el("path", { d: `M${q.x + 19} ${q.y + 19} l7 7 m0 -7 l-7 7`, class: "eaten-mark" }, g);
      }
      const badge = el("g", { class: "step-badge", transform: `translate(${p.x + 6} ${p.y + 6})`,
                              "data-step": step.number }, g);
      el("circle", { r: 6 }, badge);
      el("text", { y: 2.6 }, badge).textContent = step.number;
    }
  }

  /* Replay a plan: the monster walks, pushes, wraps, teleports and eats, one step at a time. */
  async animate(plan) {
    const token = {};
    this.animating = token;
    if (reducedMotion()) {   // no travel: the move at once with its numbered path; the steps still listed and said
      this.svg.dataset.anim = "still";
      this._monster(plan.end.at, plan.end.facing);
      this.draw(plan.position);
      this.drawPathMarks(plan, plan.steps.length);
      for (const step of plan.steps) if (this.options.onStep) this.options.onStep(step);
      this.svg.dataset.anim = "done";
      this.animating = null;
      return true;
    }
    this.svg.dataset.anim = "running";
    this.draw(plan.before);
    this._monster(plan.start.at, plan.start.facing);
    this.clearPath();
    const ms = this.options.stepMs;
    for (const step of plan.steps) {
      if (this.animating !== token) return false;
      this.svg.dataset.step = step.number;
      if (this.options.onStep) this.options.onStep(step);
      if (step.look.new_facing !== step.look.facing) {
        this._monster(this.monsterAt, step.look.new_facing);
        await sleep(ms * 0.3);
      }
      let jump = false;
      for (const ev of step.events) {
        if (this.animating !== token) return false;
        if (ev.kind === "pivot") {
          this._flash(ev.square, "fx-pivot");
          this._monster(this.monsterAt, ev.facing);
          await sleep(ms * 0.3);
        } else if (ev.kind === "wrap") {
          this._flash(ev.from, "fx-wrap");
          jump = true;
        } else if (ev.kind === "enter") {
          this._moveMonster(ev.square, jump);
          jump = false;
          await sleep(ms * (ev.slide ? 0.35 : 0.5));
        } else if (ev.kind === "push") {
          this._push(ev);
        } else if (ev.kind === "eat") {
          this._eat(ev);
          await sleep(ms * 0.4);
        } else if (ev.kind === "teleport") {
          this._flash(ev.from, "fx-teleport");
          this._moveMonster(ev.to, true);
          this._flash(ev.to, "fx-teleport");
          await sleep(ms * 0.4);
        }
      }
      this._monster(step.to, step.facing);
      this.drawPathMarks(plan, step.number);
      await sleep(ms * 0.4);
    }
    if (this.animating !== token) return false;
    this._monster(plan.end.at, plan.end.facing);
    this.draw(plan.position);
    this.drawPathMarks(plan, plan.steps.length);
    this.svg.dataset.anim = "done";
    this.animating = null;
    return true;
  }

  stop() { this.animating = null; this.svg.dataset.anim = "stopped"; }

  _moveMonster(sq, jump) {
    this.monsterNode.classList.toggle("jump", !!jump);
    this._monster(sq, this.monsterFacing);
  }

  _push(ev) {
    const node = this.pieceNodes[ev.from];
    if (!node) return;
    delete this.pieceNodes[ev.from];
    if (ev.to) {
      const p = sqXY(this.board, ev.to);
      node.setAttribute("transform", `translate(${p.x + PITCH / 2} ${p.y + PITCH / 2})`);
      node.dataset.square = ev.to;
      this.pieceNodes[ev.to] = node;
    } else {
      node.classList.add("destroyed");
      setTimeout(() => node.remove(), 600);
      this._flash(ev.from, "fx-eat");
    }
  }

  _eat(ev) {
    const node = this.pieceNodes[ev.square];
    this._flash(ev.square, "fx-eat");
    if (node && node.classList.contains("pawn")) {
      delete this.pieceNodes[ev.square];
      node.classList.add("eaten");
      setTimeout(() => node.remove(), 600);
    }
  }

  _flash(sq, cls) {
    const p = sqXY(this.board, sq);
    const r = el("rect", { x: p.x, y: p.y, width: PITCH, height: PITCH, rx: 4, class: `fx ${cls}` }, this.layers.fx);
    setTimeout(() => r.remove(), 900);
  }
}

/* Live state over Server-Sent Events, reconnecting by itself after Wi-Fi drops.
 * The browser retries a closed stream on its own; a stream that died silently (no
 * "ping" for 45 s, the server sends one every 15 s) is reopened by the watchdog. */
const SILENCE_MS = window.FLURE_SILENCE_MS || 45000;   // tests shorten it
/* The whole state from a delta (events.state_delta) and the state of the version before it: the
 * fields it names replaced, the log's kept run and its new lines. */
function applyState(kept, delta) {
  const state = Object.assign({}, kept, delta);
  for (const k of ["delta", "log_from", "log_kept", "log_new"]) delete state[k];
  if (delta.log_new) state.log = kept.log.slice(delta.log_from, delta.log_from + delta.log_kept).concat(delta.log_new);
  return state;
}

/* The live stream of ``view`` ("phone", "referee" or "leds": what the server sends this page). */
function connectLive(onState, onLink, handlers, view = "phone") {
  let source = null, retryTimer = null, lastHeard = Date.now(), kept = null;
  function open() {
    clearTimeout(retryTimer);
    if (source) source.close();
    lastHeard = Date.now();
    // the server says the stream's sentences in the language it is opened in: the page's (a page that
    // switches language is a new page, with a new stream)
    kept = null;   // a new stream starts with the whole state
    source = new EventSource(`/api/stream?view=${view}&lang=${encodeURIComponent(window.FLURE_LANG)}`);
    source.addEventListener("state", (e) => {
      lastHeard = Date.now(); onLink("live");
      const message = JSON.parse(e.data);
      if (message.delta && (!kept || message.version <= kept.version)) return;   // already in the state held
      const state = kept = message.delta ? applyState(kept, message) : message;
      if (state.tile_names) tileNames = state.tile_names;
      onState(state);
    });
    source.addEventListener("ping", () => { lastHeard = Date.now(); });
    // the camera's view and the LED grid's frame come over the same stream: nothing polls
    for (const [event, fn] of Object.entries(handlers || {})) {
      source.addEventListener(event, (e) => { lastHeard = Date.now(); fn(JSON.parse(e.data)); });
    }
    source.onopen = () => { lastHeard = Date.now(); onLink("live"); };
    source.onerror = () => {
      onLink("reconnecting");
      if (source.readyState === EventSource.CLOSED) retryTimer = setTimeout(open, 2000);
    };
  }
  setInterval(() => {
    if (Date.now() - lastHeard > SILENCE_MS) { onLink("reconnecting"); open(); }
  }, Math.min(5000, SILENCE_MS / 4));
  window.addEventListener("online", open);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && (!source || source.readyState === EventSource.CLOSED)) open();
  });
  open();
  return { reconnect: open };
}

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

/* The engine's names of the tiles for this game (state.tile_names: "5 (three prey, G11)" under the
 * G11 variant); the plain face value only until the first state has arrived. */
let tileNames = {};
function tileName(tile) {
  if (!tile) return "";
  if (tileNames[tile]) return tileNames[tile];
  return tile.startsWith("prey-") ? t("%(n)s prey", { n: tile.slice(5) }) : t("%(n)s steps", { n: tile });
}

/* A server-made sentence (the server says it in this page's language), or "" when there is none. */
function said(obj, field) {
  return obj && obj[field] != null ? obj[field] : "";
}

/* A translated sentence with elements in it: withNodes(t("%(views)s views"), { views: span }) gives the
 * sentence's pieces in the language's order, each %(name)s replaced by its element. */
function withNodes(text, nodes) {
  return text.split(/(%\(\w+\)s)/).filter(Boolean).map((part) => {
    const m = /^%\((\w+)\)s$/.exec(part);
    return m && nodes[m[1]] ? nodes[m[1]] : part;
  });
}

function pieceName(kind) { return PIECE_NAMES[kind] || kind; }

/* A pawn's name as the engine gives it ("red 3/4") in this page's language, as i18n.text.pawn_name
 * words it ("Rot 3/4", "le pion rouge 3/4", "la ficha roja 3/4": the colour of a pawn is msgctxt "pawn"). */
function pawnText(name) {
  const [colour, ...rest] = String(name).split(" ");
  return rest.length ? t("%(colour)s %(kind)s", { colour: pgettext("pawn", colour), kind: rest.join(" ") }) : name;
}

/* The camera worker's state (table/watcher.py) in this page's language. */
const CAMERA_STATES = { starting: N_("starting"), watching: N_("watching"), lost: N_("lost"), failed: N_("failed"),
  error: N_("error"), stopped: N_("stopped") };
function cameraState(state) { return state ? t(CAMERA_STATES[state] || state) : "…"; }

/* A heading (N, E, S, W) in this page's language (W is "O" in French and Spanish). */
function direction(letter) { return pgettext("direction", letter); }

/* "Save this move" (phone and referee): the server draws the last move as a GIF (and a PNG); a
 * device that can share files (Web Share API) offers it to its chat apps, any other browser
 * downloads it.  ``box`` holds #save-move (the GIF) and #save-still (the PNG). */
function showSave(state) {
  const box = document.getElementById("save");
  box.classList.toggle("hidden", !state.plan);
  if (!state.plan) return;
  document.getElementById("save-move").href = `/api/move.gif?seq=${state.plan_seq}`;
  document.getElementById("save-still").href = `/api/move.png?seq=${state.plan_seq}`;
}
async function shareMove(event) {
  if (!navigator.canShare || !navigator.share) return;   // the link downloads it
  event.preventDefault();
  const href = document.getElementById("save-move").href;
  try {
    const blob = await (await fetch(href)).blob();
    const file = new File([blob], "monster-move.gif", { type: "image/gif" });
    if (navigator.canShare({ files: [file] })) await navigator.share({ files: [file], title: t("Monster move") });
    else window.location.href = href;
  } catch (err) { /* the player closed the share sheet */ }
}

function capital(s) { return s ? s[0].toUpperCase() + s.slice(1) : s; }

/* The players' panel: for each colour, pawns out / on the board / waiting / gone. */
function playersPanel(state) {
  const rows = state.players.map((colour) => {
    const pawns = Object.values(state.position.pawns).filter((p) => p.color === colour);
    const count = (pred) => pawns.filter(pred).length;
    const onBoard = count((p) => p.at), out = count((p) => p.place === "out"), gone = count((p) => p.place === "gone");
    const waiting = pawns.length - onBoard - out - gone;
    const turn = state.to_move === colour;
    return h("li", { class: `player${turn ? " to-move" : ""}`, "data-colour": colour },
      colourMark(colour),
      h("span", { class: "player-name" }, capital(t(colour)), state.first_player === colour ? h("small", {}, " " + t("first")) : null),
      h("span", { class: "counts" },
        h("b", { title: t("out of the fortress") }, t("%(n)s out", { n: out })), " · ",
        t("%(n)s on board", { n: onBoard }), " · ", t("%(n)s waiting", { n: waiting }),
        gone ? " · " + t("%(n)s gone", { n: gone }) : ""));
  });
  return h("ul", { class: "players" }, rows);
}

function tilesPanel(state) {
  const played = state.tiles_played.map((t) => h("span", { class: "tile played" }, tileName(t)));
  return h("div", { class: "tiles" },
    h("span", { class: "label" }, t("Tiles played:") + " "),
    played.length ? played : h("span", { class: "muted" }, t("none yet")),
    h("span", { class: "deck" }, t("%(n)s left", { n: state.deck_left })));
}

/* Round, turn and whose move it is, as pills. */
function turnPills(state) {
  return [
    h("span", { class: "pill" }, t("Round %(n)s", { n: state.round })),
    h("span", { class: "pill" }, t("Turn %(n)s", { n: state.turn })),
    state.to_move ? h("span", { class: `pill turn colour-${state.to_move}` }, colourMark(state.to_move, true),
      t("%(colour)s to move", { colour: capital(t(state.to_move)) })) : null,
    state.phase === "monster" ? h("span", { class: "pill monster-turn" }, t("Monster's turn")) : null,
  ].filter(Boolean);
}

/* True when ``state`` carries a monster move newer than the one shown (``shownPlan``) in the same game.
 * An undo brings back an older plan (a lower plan_seq): that is shown, not replayed. */
function isNewPlan(state, shownPlan, shownGame) {
  if (!state.plan || state.plan_seq === null || state.plan_seq === undefined) return false;
  if (shownGame === undefined || state.game_id !== shownGame || shownPlan === undefined) return false;
  return shownPlan === null || state.plan_seq > shownPlan;
}

/* While a move is animated: the status line says so (the state already holds the position after it),
 * and the round and turn are those the move was played in, not the next turn's. */
function showMonsterMoving(state) {
  document.getElementById("summary").textContent =
    t("The monster moves: %(tile)s. Watch the board…", { tile: tileName(state.plan.card) });
  const line = document.getElementById("turnline");
  line.replaceChildren(
    h("span", { class: "pill" }, t("Round %(n)s", { n: state.plan_round || state.round })),
    h("span", { class: "pill" }, t("Turn %(n)s", { n: state.plan_turn || state.turn })),
    h("span", { class: "pill monster-turn" }, t("Monster's turn")));
}

/* The LED grid's last frame as sent (the LEDs under the board, simulated or real), drawn small.
 * Colours are brightened for the screen (an LED at 3/255 glows; a pixel at 3/255 is black). */
class LedPanel {
  constructor(container, board) {
    const P = 10;
    this.svg = el("svg", { viewBox: `0 0 ${board.cols * P} ${board.rows * P}`, class: "leds", role: "img",
                           "aria-label": t("What the LEDs under the board show") });
    container.replaceChildren(this.svg);
    this.cells = {};
    for (const s of board.squares) {
      this.cells[s.name] = el("rect", { x: s.col * P + 0.6, y: s.row * P + 0.6, width: P - 1.2, height: P - 1.2,
                                        rx: 1.5, fill: "#000", "data-square": s.name }, this.svg);
    }
  }

  /* A frame as the server sends it (table.events.leds_delta: every square, or those that changed): each
   * square's colour before the power cap, the cap's figures, and the squares its show changes by a rule
   * of time (frame.anim: hardware/animation.py Show.wire), which this panel animates itself. */
  show(frame) {
    if (!frame || !frame.squares) return;
    const box = this.svg.closest(".leds-box");   // the table card's panel: hidden until a frame comes
    if (box) box.classList.remove("hidden");
    this.raw = this.raw || {};
    for (const [name, hex] of Object.entries(frame.squares)) {
      this.raw[name] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
    }
    if (frame.power) this.power = frame.power;
    this.svg.dataset.showing = frame.showing || "";
    this.animate(frame.anim);
  }

  /* Ten times a second, as the LED grid's player: each part's squares at the show's time (``anim.t``
   * when the frame was sent), then the whole frame through the power cap. */
  animate(anim) {
    clearInterval(this.timer);
    this.timer = null;
    if (!anim) { this.paint(); return; }
    const t0 = performance.now() / 1000 - anim.t;
    const tick = () => {
      const t = performance.now() / 1000 - t0;
      for (const part of anim.parts) {
        if (part.kind === "pulse") {
          if (part.until !== undefined && t >= part.until) continue;
          const level = part.low + part.depth * (0.5 - 0.5 * Math.cos(2 * Math.PI * t / part.period_s + part.phase));
          const rgb = part.rgb.map((v) => byte(Math.fround(v * level)));
          for (const sq of part.squares) this.raw[sq] = rgb;
        } else if (part.kind === "blink") {
          const on = Math.floor(t * part.hz * 2) % 2 === 0;
          part.squares.forEach((sq, i) => { this.raw[sq] = on ? part.on : part.off[i]; });
        }
      }
      this.paint();
    };
    tick();
    this.timer = setInterval(tick, 100);
  }

  /* The frame as the grid is sent it: the brightness, then scaled down to the current budget when over
   * it (hardware/power.py cap_current, in the same single-precision arithmetic). */
  paint() {
    const p = this.power || { brightness: 1, ma_per_channel: 0, allowed_ma: 1, leds: {} };
    const f = Math.fround, b = f(p.brightness);
    const leds = (name) => (name in p.leds ? p.leds[name] : 1);
    const out = {};
    let sum = 0;
    for (const [name, rgb] of Object.entries(this.raw)) {
      out[name] = b < 1 ? rgb.map((v) => f(v * b)) : rgb;
      sum += leds(name) * (out[name][0] + out[name][1] + out[name][2]);
    }
    const ma = sum * p.ma_per_channel / 255;
    const scale = p.allowed_ma <= 0 ? 0 : ma > p.allowed_ma ? f(p.allowed_ma / ma) : null;
    for (const [name, rgb] of Object.entries(out)) {
      const sent = leds(name) === 0 || scale === 0 ? [0, 0, 0]
        : scale !== null ? rgb.map((v) => Math.floor(f(v * scale))) : b < 1 ? rgb.map(byte) : rgb;
      this.set(name, sent.map((v) => v.toString(16).padStart(2, "0")).join(""));
    }
  }

  set(name, hex) {
    const cell = this.cells[name];
    if (!cell || cell.dataset.sent === hex) return;
    const rgb = [0, 2, 4].map((i) => Math.round(255 * Math.sqrt(parseInt(hex.slice(i, i + 2), 16) / 255)));
    cell.setAttribute("fill", `rgb(${rgb.join(",")})`);
    cell.dataset.sent = hex;
  }
}

/* A colour channel as numpy's rint and a uint8 clip make it: to the nearest, halves to even, 0 … 255. */
function byte(v) {
  const r = Math.round(v);
  return Math.min(255, Math.max(0, r - (r - v === 0.5 && r % 2 !== 0 ? 1 : 0)));
}

/* The follow-up the table card and the board show: the session's, or during the advanced setup what to
 * put right when the table shows no legal placement (view.placement.follow). */
function activeFollow(view) {
  const follow = view.follow && !view.follow.done ? view.follow : null;
  const placing = view.placement && view.placement.follow;
  return follow || (placing && !placing.done ? placing : null);
}

/* Hands (or anything) over the board in the camera's last reading. */
function handsOver(view) {
  const st = view.status || {}, detail = st.detail || {};
  return Boolean(detail.occluded || (view.reading && (view.reading.problems || []).some((p) => p.code === "occluded")));
}

/* The table card (phones and referee): what the camera needs, and the follow-up still to do.  ``player``
 * (the phones): said as a player would, without the camera's frame counts and square lists. */
function renderTable(view, player = false) {
  const st = view.status || {}, detail = st.detail || {};
  const pill = document.getElementById("table-state");
  const steady = st.present && view.stable;
  pill.textContent = !st.present ? t("no camera") : steady ? t("camera: steady")
    : player ? t("camera: waiting")
    : (detail.state === "watching" ? t("camera: watching") : t("camera: %(state)s", { state: cameraState(detail.state) }));
  pill.className = `pill ${steady ? "ok" : st.present ? "warn" : "muted"}`;
  const follow = activeFollow(view);
  const placing = view.placement;   // the advanced setup (A2): who places next and what is left, in this page's language
  let needs = placing && view.change && view.change.kind === "wait" ? said(placing, "text") : said(view, "needs");
  if (player && !st.present) needs = t("No camera: the referee enters the moves.");
  else if (player && !steady) needs = handsOver(view) ? t("Hands over the board: waiting until they are gone.")
    : t("Waiting for the table to be still.");
  document.getElementById("table-needs").textContent = follow ? "" : (needs || "");
  document.getElementById("follow").classList.toggle("hidden", !follow);
  if (follow) {
    document.getElementById("follow-why").textContent = t("%(why)s:", { why: said(follow, "why") });
    document.getElementById("follow-list").replaceChildren(...follow.fixes.map((f) =>
      h("li", { class: `fix ${f.what}`, "data-empty": f.empty.join(" "), "data-fill": f.fill.join(" ") }, said(f, "text"))));
  }
}

/* The monster move's log (#steps in #move): steps before ``upTo`` done, ``upTo`` current, later ones hidden.
 * The current step's line is also shown right under the board (#now), so a phone need not scroll. */
/* The move's lines (the server says them in this page's language). */
function planLines(state) {
  return state.plan_lines || [];
}

function renderSteps(state, upTo) {
  const lines = planLines(state);
  const list = document.getElementById("steps");
  const move = document.getElementById("move");
  const now = document.getElementById("now");
  list.textContent = "";
  if (now) {
    const line = state.plan && upTo ? lines[upTo - 1] : null;
    now.textContent = line || "";
    now.classList.toggle("hidden", !line);
  }
  if (!state.plan) {
    move.classList.add("empty");
    document.getElementById("tile-badge").textContent = "";
    list.append(h("li", { class: "muted" }, t("The monster has not moved yet.")));
    return;
  }
  move.classList.remove("empty");
  document.getElementById("tile-badge").textContent = tileName(state.plan.card);
  lines.forEach((line, i) => {
    const n = i + 1;
    const cls = upTo === undefined ? "done" : n < upTo ? "done" : n === upTo ? "current" : "future";
    list.append(h("li", { class: cls, "data-step": n }, line));
  });
}

/* The game log (#log), newest first, without the monster's lines the move panel already shows. */
function renderLog(state) {
  const items = state.log.slice().reverse().filter((e) => !e.plan).slice(0, 12);
  document.getElementById("log").replaceChildren(...items.map((e) => h("li", { "data-seq": e.seq }, said(e, "text"))));
}

/* The board's geometry, fetched again until the server answers (the page may load just as Wi-Fi drops). */
async function loadBoard(onLink) {
  for (let wait = 1000; ; wait = Math.min(wait * 2, 10000)) {
    try {
      const res = await fetch("/api/board");
      if (res.ok) return await res.json();
    } catch (e) { /* offline: try again */ }
    onLink("reconnecting");
    await sleep(wait);
  }
}

/* The live/reconnecting badge (#link). */
function showLink(state) {
  const link = document.getElementById("link");
  link.textContent = state === "live" ? t("live") : t("reconnecting…");
  link.className = `link ${state}`;
}

/* Modal dialogs (.overlay[aria-modal="true"], shown and hidden by their .hidden class): the page behind
 * (but the header with the language switch) is inert while one is open, focus moves into it ([autofocus] or its first control) and back where it
 * was when it closes, Tab and Shift+Tab go round inside it, and Escape presses its [data-cancel] button. */
const FOCUSABLE = 'button, [href], input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
function watchDialogs() {
  const dialogs = Array.from(document.querySelectorAll('.overlay[aria-modal="true"]'));
  const cameFrom = new Map();
  const top = () => dialogs.filter((d) => !d.classList.contains("hidden")).pop() || null;
  const controls = (d) => Array.from(d.querySelectorAll(FOCUSABLE))
    .filter((n) => !n.disabled && n.getClientRects().length && !n.closest(".hidden"));
  function update() {
    const open = top();
    for (const n of document.querySelectorAll("[data-inert-by-dialog]")) {
      n.inert = false;
      n.removeAttribute("data-inert-by-dialog");
    }
    for (let n = open; n && n !== document.body; n = n.parentElement) {   // everything but the dialog's branch
      for (const sib of n.parentElement.children) {
        // the header (the language switch) stays usable above any dialog: a phone can change language under
        // the winner dialog
        if (sib === n || sib.tagName === "SCRIPT" || sib.getAttribute("role") === "alert" || sib.matches("header.top")) continue;
        sib.inert = true;
        sib.setAttribute("data-inert-by-dialog", "");
      }
    }
    for (const d of dialogs) {
      const shown = !d.classList.contains("hidden");
      if (shown && !cameFrom.has(d)) {
        cameFrom.set(d, document.activeElement);
        if (d === open && !d.contains(document.activeElement)) {
          const first = d.querySelector("[autofocus]") || controls(d)[0];
          if (first) first.focus();
        }
      } else if (!shown && cameFrom.has(d)) {
        const back = cameFrom.get(d);
        cameFrom.delete(d);
        if (!open && back && back.isConnected && back !== document.body) back.focus();
      }
    }
  }
  const watch = new MutationObserver(update);
  for (const d of dialogs) watch.observe(d, { attributes: true, attributeFilter: ["class"] });
  document.addEventListener("keydown", (e) => {
    const open = top();
    if (!open) return;
    if (e.key === "Escape") {
      const cancel = open.querySelector("[data-cancel]");
      if (cancel) { e.preventDefault(); cancel.click(); }
      return;
    }
    if (e.key !== "Tab") return;
    const list = controls(open);
    if (!list.length) return;
    const i = list.indexOf(document.activeElement);
    const next = e.shiftKey ? (i <= 0 ? list[list.length - 1] : null) : (i < 0 || i === list.length - 1 ? list[0] : null);
    if (next) { e.preventDefault(); next.focus(); }
  });
  update();
}
watchDialogs();

window.Flure = { FlureBoard, LedPanel, colourMark, reducedMotion, connectLive, h, tileName, capital, said, withNodes, pieceName, pawnText, direction, cameraState, showSave, shareMove, playersPanel, tilesPanel, turnPills, renderSteps,
  renderLog, renderTable, handsOver, showLink, isNewPlan, showMonsterMoving, loadBoard, planLines };
