/* The /leds page: the LED grid's frames as they are sent, live over the same stream as the game. */
"use strict";
(function () {
  const { LedPanel, connectLive, showLink, loadBoard } = window.Flure;
  // what the grid shows (hardware/leds.py names its shows) in this page's language
  const SHOWS = { none: N_("nothing yet"), idle: N_("idle"), plan: N_("the monster's move"), mark: N_("a pawn's move"),
    follow: N_("follow-up"), error: N_("error"), test: N_("test") };

  async function start() {
    const panel = new LedPanel(document.getElementById("leds-panel"), await loadBoard(showLink));
    connectLive(() => {}, showLink, { leds: (frame) => {
      panel.show(frame);
      document.getElementById("leds-showing").textContent = frame.showing ? t(SHOWS[frame.showing] || frame.showing) : "–";
    } }, "leds");
  }
  start();
})();
