/* The /leds page: the LED grid's frames as they are sent, live over the same stream as the game. */
"use strict";
(function () {
  const { LedPanel, connectLive, showLink, loadBoard } = window.Flure;

  async function start() {
    const panel = new LedPanel(document.getElementById("leds-panel"), await loadBoard(showLink));
    connectLive(() => {}, showLink, { leds: (frame) => {
      panel.show(frame);
      document.getElementById("leds-showing").textContent = frame.showing || "–";
    } });
  }
  start();
})();
