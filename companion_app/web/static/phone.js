/* The players' view: read-only, follows the game live and animates every monster move. */
"use strict";
(function () {
  const { FlureBoard, LedPanel, connectLive, h, capital, playersPanel, tilesPanel, turnPills, renderSteps, renderLog,
    renderTable, showLink, isNewPlan, showMonsterMoving, loadBoard, planLines, said, showSave, shareMove } = window.Flure;
  const $ = (id) => document.getElementById(id);
  let board = null, latest = null, animState = null, shownPlan = undefined, shownGame = undefined;

  const summaryText = (state) => said(state, "summary");

  let shownRound = undefined;   // the round the header shows
  function renderStatus(state) {
    shownRound = state.round;
    $("summary").textContent = summaryText(state);
    const info = $("turnline");
    info.textContent = "";
    if (state.phase === "none") return;
    info.append(...turnPills(state));
    $("tiles").replaceChildren(tilesPanel(state));
    $("players").replaceChildren(playersPanel(state));
  }

  function renderWinner(state) {
    const box = $("winner");
    if (state.phase !== "over") { box.classList.add("hidden"); return; }
    box.classList.remove("hidden");
    $("winner-title").textContent = state.winner === "monster" ? t("The monster wins")
      : t("%(colour)s wins!", { colour: capital(t(state.winner)) });
    $("winner-title").className = `colour-text-${state.winner}`;
    $("winner-text").textContent = summaryText(state);
    $("winner-table").replaceChildren(playersPanel(state));
  }

  function render(state) {
    showSave(state);
    renderStatus(state);
    renderLog(state);
    if (state.phase === "none") {
      $("board-card").classList.add("waiting");
      renderSteps(state);
      $("players").replaceChildren(h("p", { class: "muted" }, t("The players appear when the referee starts a game.")));
      return;
    }
    $("board-card").classList.remove("waiting");
    board.draw(state.position);
    if (state.plan && state.plan_seq === shownPlan) board.drawPathMarks(state.plan, state.plan.steps.length);
    renderSteps(state);
    renderWinner(state);
  }

  async function onState(state) {
    latest = state;
    // A locked phone or a background tab runs timers once a second or slower: a move animated then
    // would crawl on for minutes.  It is drawn (and animated) when the screen is back instead.
    if (document.hidden) { waiting = true; return; }
    if (board === null || board.animating) return;   // drawn when the animation ends
    const fresh = isNewPlan(state, shownPlan, shownGame);
    shownGame = state.game_id;
    if (!fresh) { shownPlan = state.plan_seq; render(state); return; }
    replayFrom = shownPlan;
    shownPlan = state.plan_seq;
    // The round's last move ends the round: the header keeps the round being played (its deck) until
    // the move has been shown, then the next round's comes with render().
    if (shownRound === undefined || state.round === shownRound) renderStatus(state);
    showMonsterMoving(state);
    renderLog(state);
    animState = state;
    renderSteps(state, 0);
    $("board-card").classList.remove("waiting");
    $("board-card").scrollIntoView({ block: "nearest" });
    const finished = await board.animate(state.plan);
    if (finished) onState(latest);   // a state that came meanwhile: drawn, or animated if it is a newer move
  }

  let waiting = false, replayFrom = undefined;
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      if (board && board.animating) { board.stop(); shownPlan = replayFrom; waiting = true; }   // replayed on return
    } else if (waiting && latest) {
      waiting = false;
      onState(latest);
    }
  });

  /* Read aloud (issue 16): a tap switches it on (browsers let a page speak only after one); each
   * step is spoken as it animates, in this page's language, with the browser's speech synthesis. */
  let speaking = false;
  function speak(state, n) {
    const line = planLines(state)[n - 1];
    if (!speaking || !line || !window.speechSynthesis) return;
    const utterance = new SpeechSynthesisUtterance(line);
    utterance.lang = window.FLURE_LANG;
    window.speechSynthesis.speak(utterance);
  }
  function toggleSpeech() {
    speaking = !speaking;
    if (!speaking && window.speechSynthesis) window.speechSynthesis.cancel();
    const button = $("speak");
    button.setAttribute("aria-pressed", String(speaking));
    button.textContent = speaking ? t("Reading aloud: on") : t("Read the moves aloud");
  }

  async function start() {
    $("save-move").addEventListener("click", shareMove);
    if (window.speechSynthesis) $("speak").addEventListener("click", toggleSpeech);
    else $("speak").classList.add("hidden");
    const geometry = await loadBoard(showLink);
    board = new FlureBoard($("board"), geometry, {
      onStep: (step) => { if (animState) { renderSteps(animState, step.number); speak(animState, step.number); } },
    });
    const leds = new LedPanel($("leds-panel"), geometry);
    connectLive(onState, showLink, { camera: (view) => renderTable(view, true), leds: (frame) => leds.show(frame) });
    $("winner-close").addEventListener("click", () => $("winner").classList.add("hidden"));
  }
  start();
})();
