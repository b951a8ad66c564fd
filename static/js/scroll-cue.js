/* A table wider than its .scroll box gets a line above it saying so (the page itself never scrolls sideways),
   kept in step when the window changes size or htmx swaps a table in. */
(function () {
  "use strict";
  var TEXT = "Wider than the screen: scroll the table sideways for more columns →";

  function mark(box) {
    var cue = box.previousElementSibling;
    var has = cue && cue.classList.contains("scroll-cue");
    var wide = box.scrollWidth > box.clientWidth + 1;
    if (wide && !has) {
      cue = document.createElement("p");
      cue.className = "scroll-cue";
      cue.textContent = TEXT;
      box.parentNode.insertBefore(cue, box);
    } else if (!wide && has) {
      cue.remove();
    }
  }

  function markAll() {
    document.querySelectorAll(".scroll").forEach(mark);
  }

  document.addEventListener("DOMContentLoaded", markAll);
  window.addEventListener("resize", markAll);
  document.addEventListener("htmx:afterSettle", markAll);
})();
