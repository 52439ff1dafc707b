/* The players' view: read-only, follows the game live and animates every monster move. */
"use strict";
(function () {
  const { FlureBoard, connectLive, h, tileName, capital, playersPanel, tilesPanel } = window.Flure;
  const $ = (id) => document.getElementById(id);
  let board = null, latest = null, shownPlan = undefined, shownGame = undefined;

  function setLink(state) {
    const link = $("link");
    link.textContent = state === "live" ? "live" : "reconnecting…";
    link.className = `link ${state}`;
  }

  function renderStatus(state) {
    $("summary").textContent = state.summary;
    const info = $("turnline");
    info.textContent = "";
    if (state.phase === "none") return;
    info.append(...[
      h("span", { class: "pill" }, `Round ${state.round}`),
      h("span", { class: "pill" }, `Turn ${state.turn}`),
      state.to_move ? h("span", { class: `pill turn colour-${state.to_move}` }, `${capital(state.to_move)} to move`) : null,
      state.phase === "monster" ? h("span", { class: "pill monster-turn" }, "Monster's turn") : null].filter(Boolean));
    $("tiles").replaceChildren(tilesPanel(state));
    $("players").replaceChildren(playersPanel(state));
  }

  function renderSteps(state, upTo) {
    const list = $("steps");
    list.textContent = "";
    if (!state.plan) {
      $("move").classList.add("empty");
      $("tile-badge").textContent = "";
      list.append(h("li", { class: "muted" }, "The monster has not moved yet."));
      return;
    }
    $("move").classList.remove("empty");
    $("tile-badge").textContent = tileName(state.plan.card);
    state.plan_lines.forEach((line, i) => {
      const n = i + 1;
      const cls = upTo === undefined ? "done" : n < upTo ? "done" : n === upTo ? "current" : "future";
      list.append(h("li", { class: cls, "data-step": n }, line));
    });
  }

  function renderLog(state) {
    const items = state.log.slice().reverse().filter((e) => !/^step \d+:/.test(e.text)).slice(0, 12);
    $("log").replaceChildren(...items.map((e) => h("li", {}, e.text)));
  }

  function renderWinner(state) {
    const box = $("winner");
    if (state.phase !== "over") { box.classList.add("hidden"); return; }
    box.classList.remove("hidden");
    $("winner-title").textContent = state.winner === "monster" ? "The monster wins" : `${capital(state.winner)} wins!`;
    $("winner-title").className = `colour-text-${state.winner}`;
    $("winner-text").textContent = state.summary;
    $("winner-table").replaceChildren(playersPanel(state));
  }

  function render(state) {
    renderStatus(state);
    renderLog(state);
    if (state.phase === "none") { $("board-card").classList.add("waiting"); return; }
    $("board-card").classList.remove("waiting");
    board.draw(state.position);
    if (state.plan && state.plan_seq === shownPlan) board.drawPathMarks(state.plan, state.plan.steps.length);
    renderSteps(state);
    renderWinner(state);
  }

  async function onState(state) {
    latest = state;
    if (board === null || board.animating) return;   // drawn when the animation ends
    const fresh = state.plan && state.plan_seq !== shownPlan && shownGame === state.game_id;
    shownGame = state.game_id;
    if (!fresh) { shownPlan = state.plan_seq; render(state); return; }
    shownPlan = state.plan_seq;
    renderStatus(state);
    renderLog(state);
    renderSteps(state, 0);
    $("board-card").classList.remove("waiting");
    $("move").scrollIntoView({ block: "nearest" });
    await board.animate(state.plan);
    render(latest);
  }

  async function start() {
    const geometry = await (await fetch("/api/board")).json();
    board = new FlureBoard($("board"), geometry, {
      onStep: (step) => latest && renderSteps(latest, step.number),
    });
    connectLive(onState, setLink);
    $("winner-close").addEventListener("click", () => $("winner").classList.add("hidden"));
  }
  start();
})();
