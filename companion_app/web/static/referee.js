/* The referee's tablet: every action goes through the JSON API; the state comes back over SSE. */
"use strict";
(function () {
  const { FlureBoard, LedPanel, colourMark, reducedMotion, connectLive, h, tileName, capital, playersPanel, tilesPanel, turnPills, renderSteps,
    renderLog, renderTable, handsOver, showLink, said, pieceName, pawnText, direction, cameraState, showSave, shareMove,
    isNewPlan, showMonsterMoving, loadBoard } = window.Flure;
  const $ = (id) => document.getElementById(id);
  const COLOURS = ["blue", "yellow", "red", "green", "purple", "black", "white"];
  const TILES = ["5", "7", "8", "10", "prey-1", "prey-2"];
  const PIECES = ["stone", "crystal", "pivot-right", "pivot-about", "teleporter", "pool-2x2", "pool-1x4"];
  let board = null, latest = null, animState = null, shownPlan = undefined, shownGame = undefined;
  let selectedPawn = null, targets = [], seating = [], lastCamera = null, lastRound = null, lastPhase = null;
  let previewSeq = null, previewGame = null;   // the state the "what would each tile do" list was made for
  const pawnName = (state, label) => pawnText((state.names || {})[label] || label);

  // -- API -------------------------------------------------------------------
  let knownVersion = null;   // the newest state version this screen has seen (live stream or an answer)
  function requestKey() {    // crypto.randomUUID needs https; getRandomValues works on the table's plain http
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function api(method, path, body) {
    const opts = { method, headers: {}, credentials: "same-origin" };
    if (login.token()) opts.headers["X-CSRF-Token"] = login.token();
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const changes = method === "POST" && path !== "/api/logout" && !path.startsWith("/api/camera/fix")
      && path !== "/api/camera/clear" && path !== "/api/camera/mode" && path !== "/api/simulated";
    if (changes) {
      // Retries are safe: the same key (and the state version this screen acted on) make the server
      // answer a repeat with its first answer, and refuse with 409 when the table moved on meanwhile.
      opts.headers["Idempotency-Key"] = requestKey();
      if (knownVersion !== null) opts.headers["Flure-State-Version"] = String(knownVersion);
    }
    let res;
    for (let attempt = 0; ; attempt++) {
      try {
        res = await fetch(path, opts);
        break;
      } catch (e) {
        if (changes && attempt < 3) {   // flaky Wi-Fi: the request may or may not have arrived; ask again
          await new Promise((r) => setTimeout(r, 800 * (attempt + 1)));
          continue;
        }
        toast(t("The server does not answer: is the Wi-Fi up?"));
        throw e;
      }
    }
    const data = await res.json().catch(() => ({ error: t("The server answered HTTP %(status)s.", { status: res.status }) }));
    if (res.ok && data && typeof data.version === "number" && (knownVersion === null || data.version > knownVersion)) {
      knownVersion = data.version;
    }
    if (res.status === 409 && data.stale) {   // the table moved on (the sentence is in the page's language)
      fetch("/api/state").then((r) => r.json()).then(onState).catch(() => {});
    }
    if (res.status === 401) login.forget();
    if (!res.ok) {
      toast(said(data, "error") || t("The server answered HTTP %(status)s.", { status: res.status }));
      const err = new Error(data.error);
      err.status = res.status;
      throw err;
    }
    return data;
  }

  function toast(text, good) {
    const box = $("toast");
    box.textContent = text;
    box.className = `toast ${good ? "good" : "bad"}`;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => box.classList.add("hidden"), 6000);
  }

  // -- login (static/login.js) ---------------------------------------------------------
  const login = window.FlureLogin;
  $("logout").addEventListener("click", async () => { await api("POST", "/api/logout", {}); login.forget(); });

  // -- rendering -----------------------------------------------------------------
  /* Buttons drawn again keep the keyboard's place: the one focused before (the same data-pawn,
   * data-target or data-colour) is focused again, else the box's first button. */
  function keepFocus(box, render) {
    const was = document.activeElement;
    const inside = box.contains(was) && was !== box;
    const key = inside ? ["pawn", "target", "colour"].find((k) => was.dataset[k] !== undefined) : undefined;
    render();
    if (!inside) return;
    const again = (key && box.querySelector(`[data-${key}="${CSS.escape(was.dataset[key])}"]`)) || box.querySelector("button");
    if (again) again.focus();
  }

  function renderStatus(state) {
    $("summary").textContent = said(state, "summary");
    $("turnline").textContent = "";
    if (state.phase === "none") return;
    $("turnline").append(...turnPills(state),
      h("span", { class: "pill muted" }, state.setup === "advanced" ? t("advanced setup") : t("basic setup")));
    $("tiles").replaceChildren(tilesPanel(state));
    $("players").replaceChildren(playersPanel(state));
  }

  function renderControls(state) { keepFocus($("pawn-card"), () => drawControls(state)); }
  function drawControls(state) {
    document.body.dataset.phase = state.phase;   // on a narrow screen the card the phase needs comes first
    const monsterTurn = state.phase === "monster";
    $("draw").disabled = !monsterTurn;
    for (const b of $("tile-buttons").children) b.disabled = !monsterTurn;
    $("undo").disabled = state.phase === "none" || state.seq === 0;
    const pawnBox = $("pawn-buttons");
    pawnBox.textContent = "";
    $("target-buttons").textContent = "";
    $("place-form").classList.toggle("hidden", state.phase !== "placement");
    if (state.phase === "placement") {
      $("pawn-title").textContent = t("Advanced setup: %(colour)s places a piece (A2)", { colour: capital(t(state.placer)) });
      const sel = $("place-piece");
      const left = state.pieces_left || {};
      const was = sel.value;
      sel.replaceChildren(...PIECES.filter((p) => left[p] > 0).map((p) => h("option", { value: p },
        t("%(piece)s (%(n)s left)", { piece: pieceName(p), n: left[p] }))));
      if (left[was] > 0) sel.value = was;   // placing several of one kind: keep the choice
      // the teleporter pair offered first is one that is not on the board twice yet
      const pairs = Object.values(state.position.teleporters || {}).map((tp) => tp.pair);
      $("place-pair").value = pairs.filter((n) => n === 1).length >= 2 ? "2" : "1";
      updatePlaceFields();
      $("tap-hint").textContent = t("Choose the piece, then tap its square on the board.");
      return;
    }
    if (state.phase !== "pawns") {
      $("pawn-title").textContent = t("Pawns");
      pawnBox.append(h("p", { class: "muted" }, state.phase === "monster" ? t("Every pawn has moved: the monster's turn.") : t("No pawn to move.")));
      $("tap-hint").textContent = t("Tap a square to correct the camera's reading of it.");
      return;
    }
    $("pawn-title").textContent = t("%(colour)s moves a pawn", { colour: capital(t(state.to_move)) });
    const mine = state.unmoved.filter((label) => state.position.pawns[label].color === state.to_move);
    for (const label of mine) {
      const p = state.position.pawns[label];
      const where = p.at ? t("on %(square)s", { square: p.at }) : t("waiting");
      pawnBox.append(h("button", { class: `btn pawn-btn colour-${p.color}${selectedPawn === label ? " selected" : ""}`,
        "data-pawn": label, "aria-pressed": String(selectedPawn === label), onclick: () => selectPawn(label) },
        colourMark(p.color, true), `${capital(pawnName(state, label))} · ${where}`));
    }
    $("tap-hint").textContent = selectedPawn ? t("Tap a highlighted square to move the pawn there.")
      : t("Pick the pawn that moved, then where it went; or tap a square to fix the camera's reading.");
    renderTargets();
  }

  function renderTargets() {
    const box = $("target-buttons");
    box.textContent = "";
    const marks = {};
    for (const target of targets) {
      if (target.square && target.square !== "out") marks[target.square] = "target";
      const text = target.square === null ? t("stays beside the board") : target.square === "out" ? t("leaves through the exit") : target.square;
      box.append(h("button", { class: "btn small", "data-target": String(target.square), onclick: () => movePawn(target.square) }, text));
    }
    board.highlight(marks, ["target"]);
  }

  async function selectPawn(label) {
    selectedPawn = selectedPawn === label ? null : label;
    targets = selectedPawn ? await api("GET", `/api/targets?pawn=${encodeURIComponent(label)}`) : [];
    renderControls(latest);
  }

  async function movePawn(square) {
    // The engine's own unit moves for that target (targets() gives them), so no guessing here.
    const label = selectedPawn, target = targets.find((x) => x.square === square);
    selectedPawn = null; targets = [];
    board.highlight({}, ["target"]);
    await api("POST", "/api/action", { type: "move", pawn: label, moves: target ? target.moves : "" });
  }

  function render(state) {
    if (state.game_id !== previewGame || state.seq < previewSeq) clearPreview();   // another game, or undone
    else if (state.seq !== previewSeq) stalePreview();                             // the game went on
    showSave(state);
    renderStatus(state);
    renderLog(state);
    if (state.phase === "none") {
      $("summary").replaceChildren(t("No game yet.") + " ",
        h("button", { class: "btn small primary", id: "goto-new-game", onclick: () => {
          $("new-game").open = true;
          $("new-game").scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" });
        } }, t("Set up a new game")));
      $("new-game").open = true;
    }
    board.draw(state.position || { monster: { at: "a1", facing: "E" } });
    if (state.plan && state.plan_seq === shownPlan) board.drawPathMarks(state.plan, state.plan.steps.length);
    renderSteps(state);
    foldSteps();
    tileButtons();   // the game's tile names (G11), in this page's language
    renderControls(state);
    renderBanner(state);
    if (lastCamera) markDifferences(lastCamera);
  }

  /* The monster's step log, once the move has been shown: its last two lines (where it ended, whom it ate),
   * the others behind a button, so the cards below are not pushed far down on a tablet. */
  function foldSteps() {
    const list = $("steps"), items = [...list.children];
    $("steps-toggle")?.remove();
    if (items.length <= 3) return;
    const open = list.dataset.open === "1";
    items.slice(0, -2).forEach((li) => li.classList.toggle("hidden", !open));
    list.after(h("button", { class: "btn small ghost", id: "steps-toggle", "aria-expanded": String(open),
      onclick: () => { list.dataset.open = open ? "0" : "1"; foldSteps(); } },
    open ? t("Show only the end of the move") : t("Show all %(n)s lines of the move", { n: items.length })));
  }

  function renderBanner(state) {
    let eyebrow = null, title = null;
    if (state.phase === "over" && lastPhase !== null && lastPhase !== "over") {
      eyebrow = t("Game over");
      title = state.winner === "monster" ? t("The monster wins") : t("%(colour)s wins!", { colour: capital(t(state.winner)) });
    } else if (lastRound === 1 && state.round === 2) {
      eyebrow = t("Round 1 is over"); title = t("Round 2 begins: eaten pawns now leave the game (G9)");
    }
    lastPhase = state.phase; lastRound = state.round;
    if (!title) return;
    $("banner-eyebrow").textContent = eyebrow;
    $("banner-title").textContent = title;
    $("banner-text").textContent = said(state, "note");
    $("banner-table").replaceChildren(playersPanel(state));
    $("banner").classList.remove("hidden");
  }

  async function onState(state) {
    latest = state;
    if (typeof state.version === "number") knownVersion = state.version;
    if (board === null || board.animating) return;
    if (state.game_id !== shownGame) {     // another game: the last one's round or winner screen goes (the demo cycle)
      selectedPawn = null; targets = []; lastRound = state.round; lastPhase = state.phase;
      $("banner").classList.add("hidden");
    }
    const fresh = isNewPlan(state, shownPlan, shownGame);
    shownGame = state.game_id;
    shownPlan = state.plan_seq;
    if (!fresh) { render(state); return; }
    renderStatus(state);
    showMonsterMoving(state);
    stalePreview();
    $("steps-toggle")?.remove();   // the move is followed step by step; folded again once it is shown
    animState = state;
    renderSteps(state, 0);
    if (await board.animate(state.plan)) onState(latest);   // drawn, or animated if it is a newer move
  }

  // -- monster, preview, undo -----------------------------------------------------
  $("draw").addEventListener("click", () => api("POST", "/api/action", { type: "draw" }));
  $("undo").addEventListener("click", async () => { await api("POST", "/api/undo", {}); toast(t("Undone."), true); });
  let tilesShown = null;    // the tile names the buttons carry now
  function tileButtons() {   // again once the state has brought the game's tile names (G11), in this page's language
    const names = TILES.map(tileName).join("|");
    if (names === tilesShown) return;
    tilesShown = names;
    $("tile-buttons").replaceChildren(...TILES.map((tile) => h("button", { class: "btn tile-btn", "data-tile": tile,
      onclick: () => api("POST", "/api/action", { type: "tile", tile }) }, tileName(tile))));
  }
  tileButtons();
  function clearPreview() { $("preview").textContent = ""; previewSeq = previewGame = null; }
  /* The game went on since the answer (a live game moves on): the answer stays readable, marked as
   * an earlier position's, until asked again; an undo or another game clears it. */
  function stalePreview() {
    const box = $("preview");
    if (!box.firstChild || box.classList.contains("stale")) return;
    box.classList.add("stale");
    box.prepend(h("p", { class: "hint" }, t("For the position before the last change: ask again for this one.")));
  }
  $("preview-btn").addEventListener("click", async () => {
    const asked = latest;
    const plans = await api("GET", "/api/preview");
    const box = $("preview");
    box.textContent = "";
    box.classList.remove("stale");
    previewSeq = asked ? asked.seq : null;
    previewGame = asked ? asked.game_id : null;
    const entries = Object.entries(plans);
    if (!entries.length) { box.append(h("p", { class: "muted" }, t("No tile to preview now."))); return; }
    for (const [tile, p] of entries) {
      const eaten = p.eaten.length ? t("eats %(pawns)s", { pawns: p.eaten.map(pawnText).join(", ") }) : t("eats nobody");
      box.append(h("button", { class: "preview-row", onclick: () => { board.draw(latest.position); board.drawPathMarks(p.plan, 99); } },
        h("span", { class: "tile" }, tileName(tile)), " " + t("ends on %(square)s facing %(direction)s, %(eaten)s",
          { square: p.end.at, direction: direction(p.end.facing), eaten })));
    }
    box.append(h("p", { class: "hint" }, t("Tap a row to see its path on the board.")));
  });

  // -- camera ------------------------------------------------------------------
  // During a follow-up the squares to empty and to fill get their own colours (as on the LED grid),
  // with a legend under the board; otherwise a difference is just a difference.
  function markDifferences(view) {
    const marks = {};
    const follow = activeFollow(view);
    for (const sq of view.unseen || []) marks[sq] = "unseen";
    for (const d of view.differences) marks[d.square] = "diff";
    if (view.uncover) marks[view.uncover] = "uncover";     // the one square whose view would settle the answer
    if (follow) {
      for (const sq of follow.empty) marks[sq] = "to-empty";
      for (const sq of follow.fill) marks[sq] = "to-fill";
    }
    for (const sq of Object.keys(view.fixes || {})) marks[sq] = "fixed";
    board.highlight(marks, ["diff", "fixed", "unseen", "uncover", "to-empty", "to-fill"]);
    $("follow-legend").classList.toggle("hidden", !follow);
  }

  // The camera's view arrives over the live stream (a `camera` message after every frame that changed
  // something): nothing here polls the camera.
  let lastFrameAt = 0;
  function renderCamera(view) {
    lastCamera = view;
    renderTable(view);
    if (devices) { devices.camera = view.status; showDevices(); }   // the Devices card says what the camera card says
    const st = view.status;
    const detail = st.detail || {};
    const steady = st.present && view.stable;
    $("camera-state").textContent = !st.present ? t("not connected") : steady ? t("steady reading")
      : view.reading && view.reading.located ? t("board located") : detail.state ? cameraState(detail.state) : t("no board");
    $("camera-state").className = `pill ${steady ? "ok" : "warn"}`;
    $("camera-confirm").disabled = !view.can_confirm;
    $("camera-clear").disabled = !st.present;
    $("camera-controls").classList.toggle("hidden", !st.present);   // no camera: nothing to confirm or fix
    // Waiting (for a player's move, a still table, the game's end) is not a refusal: no "Cannot confirm".
    const waiting = !view.stable || (view.change && view.change.kind === "wait") || (latest && latest.phase === "over");
    $("camera-why").replaceChildren(view.can_confirm
      ? h("span", {}, h("b", {}, t("Confirm would play:") + " "), said(view.proposal, "message"))
      : !st.present ? said(view, "why_not")
      : view.change && view.change.kind === "wait" ? h("span", {}, h("b", {}, t("Waiting for the table:") + " "), said(view, "why_not"))
      : waiting ? said(view, "why_not")
      : h("span", {}, h("b", {}, t("Cannot confirm:") + " "), said(view, "why_not")));
    $("accept-table").disabled = !(view.follow && !view.follow.done && view.stable);
    if (document.activeElement !== $("camera-mode")) $("camera-mode").value = view.mode;
    const list = $("differences");
    list.textContent = "";
    if (!st.present) list.append(h("li", { class: "muted" }, said(st, "message") || t("No camera.")));
    // the camera's own line while steady (unsteady, the line above says why; its problems below say the rest)
    if (detail.message && st.present && view.stable && !(view.problems || []).length) {
      list.append(h("li", { class: steady ? "muted" : "warn" }, said(detail, "message")));
    }
    if (st.error) list.append(h("li", { class: "error" }, said(st, "error")));
    const running = latest && latest.phase && latest.phase !== "none";
    if (view.reading && running) {
      const problems = view.problems || [];
      for (const message of problems) list.append(h("li", { class: "warn" }, message));
      const unseen = view.unseen || [];
      if (handsOver(view)) { /* the problem line above says it once: something covers the board */ }
      else if (unseen.length > 3) {   // once, not a row per square
        list.append(h("li", { class: "warn" }, h("b", {}, unseen.slice(0, 8).join(" ") + (unseen.length > 8 ? " …" : "")),
          t(": the camera cannot see these %(n)s squares, so they are taken as the game has them. Tap a square if that is wrong.",
            { n: unseen.length })));
      } else {
        for (const sq of unseen) {
          list.append(h("li", { class: "warn" }, h("b", {}, sq),
            t(": the camera cannot see this square, so it is taken as the game has it. Tap the square if that is wrong.")));
        }
      }
      if (view.stable && !view.differences.length) list.append(h("li", { class: "ok" }, t("The camera agrees with the game.")));
      for (const d of view.differences) {
        list.append(h("li", { class: "diff" }, h("b", {}, d.square),
          t(": expected %(expected)s, camera sees %(seen)s", { expected: said(d, "expected"), seen: said(d, "seen") })));
      }
      if (view.reading.tile) list.append(h("li", {}, t("Tile in view: %(tile)s", { tile: tileName(view.reading.tile) })));
    }
    const applied = $("applied");
    applied.replaceChildren(...(view.applied || []).slice().reverse().map((a) => {
      const last = latest && a.seq === latest.seq && a.game_id === latest.game_id;
      return h("li", { "data-seq": a.seq }, h("span", {}, t("Read by the camera: %(move)s", { move: said(a, "text") })),
        last ? h("button", { class: "btn small ghost undo-camera", onclick: undoCamera }, t("Undo")) : null);
    }));
    if (running) markDifferences(view);
    else $("follow-legend").classList.add("hidden");
    const img = $("camera-frame");
    if (view.reading && login.token() && Date.now() - lastFrameAt > 1000) {   // the picture at most once a second
      lastFrameAt = Date.now();
      img.src = `/api/camera/frame.jpg?t=${lastFrameAt}`;
    }
    if (!view.reading) img.classList.add("hidden");     // shown once a picture has loaded
  }

  async function undoCamera() { await api("POST", "/api/undo", {}); toast(t("Undone: put the table back as it was."), true); }
  let cameraPushes = 0;   // camera views received over the live stream
  function onCameraPush(view) { cameraPushes += 1; renderCamera(view); }
  async function readCamera() {   // once, after logging in or a fix; later views come over the stream
    if (!login.token()) return;
    const before = cameraPushes;
    try {
      const view = await api("GET", "/api/camera");
      if (cameraPushes === before) renderCamera(view);   // a view pushed meanwhile is newer: keep it
    } catch (e) { /* shown as a toast */ }
  }
  $("camera-confirm").addEventListener("click", async () => {
    // send what the screen proposed: if the table changed since, the server plays nothing
    const shown = lastCamera && lastCamera.proposal ? lastCamera.proposal.action : null;
    const state = await api("POST", "/api/camera/confirm", shown ? { expect: shown } : {});
    toast(t("Confirmed: %(move)s", { move: said(state, "confirmed") }), true);
  });
  $("camera-clear").addEventListener("click", async () => renderCamera(await api("POST", "/api/camera/clear", {})));
  $("accept-table").addEventListener("click", async () => {
    if (!window.confirm(t("Make the game follow the table as the camera sees it? This is logged as a correction."))) return;
    await api("POST", "/api/camera/accept-table", {});
    toast(t("The game now follows the table (logged)."), true);
  });
  $("camera-mode").addEventListener("change", async () => renderCamera(await api("POST", "/api/camera/mode",
    { mode: $("camera-mode").value })));
  $("camera-frame").addEventListener("error", () => $("camera-frame").classList.add("hidden"));
  $("camera-frame").addEventListener("load", () => $("camera-frame").classList.remove("hidden"));

  // -- the simulated table: the referee's hands on it (only when the session runs one) ------------
  // The game learns of a piece moved here only through the camera, exactly as at a real table.
  const SIM_HINT = N_("The game learns of what you move here only through the camera, as at a real table.");
  let sim = null, simMoving = false, simFrom = null;
  function renderSimulated(st) {
    sim = st;
    $("sim-card").classList.remove("hidden");
    const paused = st.players.paused, over = latest && latest.phase === "over";
    $("sim-state").textContent = over ? t("game over") : paused ? t("paused") : t("playing");
    $("sim-state").className = `pill ${over ? "muted" : paused ? "warn" : "ok"}`;
    $("sim-pause").textContent = paused ? t("Resume the players") : t("Pause the players");
    // what the players are at, said by the server in this page's language
    $("sim-now").textContent = st.players.now ? t("Players: %(now)s", { now: said(st.players, "now") }) : "";
  }
  async function readSimulated() {
    if (!login.token()) return;
    const res = await fetch("/api/simulated", { credentials: "same-origin" }).catch(() => null);
    if (!res || !res.ok) { $("sim-card").classList.add("hidden"); return; }   // a real table: no card
    renderSimulated(await res.json());
  }
  function simStep(from, hint) {
    simFrom = from;
    board.highlight(from ? { [from]: "sim-from" } : {}, ["sim-from"]);
    $("sim-beside").classList.toggle("hidden", !from);
    $("sim-hint").textContent = hint;
  }
  function setSimMoving(on) {
    simMoving = on;
    $("sim-move").setAttribute("aria-pressed", String(on));
    $("sim-move").classList.toggle("primary", on);
    $("tap-hint").textContent = on ? t("Tapping the board moves pieces on the simulated table.")
      : t("Tap a square to correct the camera's reading of it.");
    simStep(null, on ? t("Tap the square of the piece to move.") : t(SIM_HINT));
  }
  async function simTap(to) {
    if (!simFrom && !to) return;
    if (!simFrom) return simStep(to, t("Now tap where the piece on %(square)s goes (or put it beside the board).", { square: to }));
    const from = simFrom;
    if (to === from) return simStep(null, t("Tap the square of the piece to move."));
    try {
      const st = await api("POST", "/api/simulated", { move: { from, to } });
      renderSimulated(st);
      simStep(null, t("Moved %(move)s. Tap the next piece to move, or stop moving pieces.", { move: said(st, "moved") }));
    } catch (e) {
      simStep(null, t("Tap the square of the piece to move."));   // the refusal is shown as a toast
    }
  }
  $("sim-pause").addEventListener("click", async () => {
    if (sim) renderSimulated(await api("POST", "/api/simulated", { paused: !sim.players.paused }));
  });
  $("sim-move").addEventListener("click", () => setSimMoving(!simMoving));
  $("sim-beside").addEventListener("click", () => simTap(null));

  // -- tapping squares: move, place, or fix ---------------------------------------------
  async function onSquare(sq) {
    if (simMoving) return simTap(sq);
    if (!latest) return;
    if (selectedPawn) {
      if (targets.some((x) => x.square === sq)) return movePawn(sq);
      toast(capital(t("%(pawn)s cannot end its move on %(square)s.", { pawn: pawnName(latest, selectedPawn), square: sq })));
      return;
    }
    if (latest.phase === "placement") {
      const piece = $("place-piece").value;
      const action = { type: "place", piece, square: sq };
      if (piece === "teleporter") { action.arrow = $("place-arrow").value; action.pair = Number($("place-pair").value); }
      if (piece === "pool-1x4") action.orientation = $("place-orientation").value;
      return api("POST", "/api/action", action);
    }
    openFix(sq);
  }

  function updatePlaceFields() {   // only the choices the chosen piece has
    const piece = $("place-piece").value;
    for (const id of ["place-arrow", "place-pair"]) $(id).parentElement.classList.toggle("hidden", piece !== "teleporter");
    $("place-orientation").parentElement.classList.toggle("hidden", piece !== "pool-1x4");
  }
  $("place-piece").addEventListener("change", updatePlaceFields);

  let fixSquare = null;
  function openFix(sq) {
    fixSquare = sq;
    $("fix-title").textContent = t("Fix square %(square)s", { square: sq });
    const diff = lastCamera && lastCamera.differences.find((d) => d.square === sq);
    $("fix-seen").textContent = diff ? t("Expected %(expected)s; the camera sees %(seen)s.",
      { expected: said(diff, "expected"), seen: said(diff, "seen") }) : t("What stands on this square?");
    updateFixFields();
    $("fix").classList.remove("hidden");
  }
  function updateFixFields() {
    const piece = $("fix-piece").value;
    for (const id of ["fix-colour", "fix-pawn", "fix-face"]) $(id).parentElement.classList.toggle("hidden", piece !== "pawn");
    $("fix-facing").parentElement.classList.toggle("hidden", piece !== "monster");
  }
  $("fix-piece").addEventListener("change", updateFixFields);
  $("fix-cancel").addEventListener("click", () => $("fix").classList.add("hidden"));
  $("fix-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const piece = $("fix-piece").value;
    const body = { square: fixSquare, piece };
    if (piece === "pawn") Object.assign(body, { color: $("fix-colour").value, pawn: $("fix-pawn").value, face: $("fix-face").value });
    if (piece === "monster") body.facing = $("fix-facing").value;
    $("fix").classList.add("hidden");
    renderCamera(await api("POST", "/api/camera/fix", body));
  });
  $("fix-colour").replaceChildren(...COLOURS.map((c) => h("option", { value: c }, t(c))));

  // -- new game ------------------------------------------------------------------
  function renderSeating() { keepFocus($("colour-buttons"), drawSeating); }
  function drawSeating() {
    const box = $("colour-buttons");
    box.replaceChildren(...COLOURS.map((c) => {
      const i = seating.indexOf(c);
      return h("button", { class: `btn colour-btn colour-${c}${i >= 0 ? " selected" : ""}`, "data-colour": c,
        "aria-pressed": String(i >= 0),
        onclick: () => { if (i >= 0) seating.splice(i, 1); else seating.push(c); renderSeating(); } },
        colourMark(c, i >= 0), i >= 0 ? `${i + 1}. ${t(c)}` : t(c));
    }));
    $("seating").textContent = seating.length
      ? t("Seating: %(order)s (%(n)s players)", { order: seating.map((c) => t(c)).join(" → "), n: seating.length })
      : t("No players chosen yet.");
    const first = $("first-player"), was = first.value;
    first.replaceChildren(...seating.map((c) => h("option", { value: c }, t(c))));
    if (seating.includes(was)) first.value = was;
    $("variant").disabled = seating.length < 6;
    if (seating.length < 6) $("variant").checked = false;
  }
  $("start-game").addEventListener("click", async () => {
    const running = latest && !["none", "over"].includes(latest.phase);
    if (running && !window.confirm(t("A game is running. End it and start a new one? (It stays saved in the database.)"))) return;
    const body = { players: seating, first_player: $("first-player").value || undefined,
      setup: $("setup").value, prey3_variant: $("variant").checked };
    await api("POST", "/api/game", body);
    $("new-game").open = false;
    toast(t("New game started."), true);
  });

  // -- game records: download the running game, load one (flure-game/1) ------------
  $("record-download").addEventListener("click", async () => {
    const record = await api("GET", "/api/game/export");
    const link = h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" })),
      download: `flure-game-${new Date().toISOString().slice(0, 16).replace(/[:T]/g, "-")}.json` });
    link.click();
    URL.revokeObjectURL(link.href);
  });
  $("record-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (!file) return;
    let record;
    try { record = JSON.parse(await file.text()); } catch (err) {
      toast(t("%(file)s is not a game record (not JSON).", { file: file.name })); return;
    }
    const running = latest && !["none", "over"].includes(latest.phase);
    if (running && !window.confirm(t("A game is running. Load this one instead? (The running game stays saved in the database.)"))) return;
    await api("POST", "/api/game/import", record);
    toast(t("Loaded %(file)s.", { file: file.name }), true);
  });

  // -- rules, join, devices --------------------------------------------------------
  $("rule-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const id = $("rule-id").value.trim();
    if (!/^[A-Za-z]\d{1,2}$/.test(id)) {
      $("rule-text").replaceChildren(h("p", { class: "error" },
        id ? t("“%(id)s” is not a rule id: rule ids look like G1, P7, M4, T2, B1, A2.", { id }) : t("Type a rule id such as M4.")));
      return;
    }
    let res, data;
    try {
      res = await fetch(`/api/rules/${encodeURIComponent(id)}?lang=${document.documentElement.lang}`);   // the page's language
      data = await res.json();
    } catch (err) {
      $("rule-text").replaceChildren(h("p", { class: "error" }, t("The server does not answer: is the Wi-Fi up?")));
      return;
    }
    $("rule-text").replaceChildren(res.ok
      ? h("div", { class: "rule" }, h("h3", {}, h("span", { class: "rule-id" }, data.id), ` ${data.title}`),
          ...data.text.split("\n").map((para) => h("p", {},   // `a1` as code, as on the rules page
            para.split("`").map((part, i) => (i % 2 ? h("code", {}, part) : part)))))
      : h("p", { class: "error" }, said(data, "error")));
  });

  function deviceLine(name, st) {
    let text, cls;
    if (!st.present) { text = said(st, "message") || t("not connected"); cls = "muted"; }
    else if (st.error) { text = said(st, "error"); cls = "error"; }
    else {
      const d = st.detail || {};
      if (d.last_problem && !d.error) d.error = d.last_problem;
      cls = d.connected === false || d.error || d.last_error ? "warn" : "ok";
      // last_error counts even while the port is open: a device can open and take nothing
      const where = d.port ? t("on %(port)s", { port: d.port }) : t("ready");
      text = said(d, "error") || said(d, "message") || (d.connected === false
        ? (d.last_error ? t("disconnected: %(error)s", { error: said(d, "last_error") }) : t("disconnected"))
        : d.last_error ? t("not working: %(error)s", { error: said(d, "last_error") })
        : t("working: %(note)s", { note: said(st, "note") || where }));
    }
    return h("li", { class: cls }, h("b", {}, name), t(": %(state)s", { state: text }));
  }
  let devices = null;   // the last /api/status; its camera is replaced by each camera view as it comes
  let joinFolded = false;
  function showDevices() {
    const st = devices;
    const lines = [deviceLine(t("Camera"), st.camera), deviceLine(t("LED grid"), st.leds),
      deviceLine(t("Buttons"), st.buttons), ...(st.speaker ? [deviceLine(t("Speaker"), st.speaker)] : []),
      ...(st.journal ? [deviceLine(t("Journal"), st.journal)] : []),
      ...(st.phone_camera ? [deviceLine(t("Phone camera"), st.phone_camera)] : [])];
    $("devices").replaceChildren(...lines);
    if (st.phones > 1 && !joinFolded) { joinFolded = true; $("join-card").open = false; }   // a phone joined: QR not needed now
    $("phones").textContent = st.phones === 1 ? t("1 screen connected") : t("%(n)s screens connected", { n: st.phones });
  }
  async function readDevices() {
    if (!login.token()) return;
    try {
      devices = await api("GET", "/api/status");
      if (lastCamera) devices.camera = lastCamera.status;
      showDevices();
    } catch (e) { /* shown */ }
  }

  async function afterLogin() {
    const join = await api("GET", "/api/join");
    $("qr").innerHTML = join.qr_svg;
    $("join-url").textContent = join.url;
    $("join-url").href = join.url;
    $("join-url").classList.remove("hidden");   // hidden while empty (a link with no words)
    readDevices();
    readCamera();
    readSimulated();
  }

  async function start() {
    $("save-move").addEventListener("click", shareMove);
    const geometry = await loadBoard(showLink);
    board = new FlureBoard($("board"), geometry, { onSquare,
      onStep: (step) => animState && renderSteps(animState, step.number) });
    renderSeating();
    $("banner-close").addEventListener("click", () => $("banner").classList.add("hidden"));
    const leds = new LedPanel($("leds-panel"), geometry);
    connectLive(onState, showLink, { camera: onCameraPush, leds: (frame) => leds.show(frame) }, "referee");
    login.start(afterLogin);
    setInterval(() => { readDevices(); readSimulated(); }, 5000);
  }
  start();
})();
