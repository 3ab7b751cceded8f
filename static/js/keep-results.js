// "Keep your results": the print and copy buttons, shown only when this script runs (without it, the browser's own
// print menu and selecting the link still work).
(function () {
  "use strict";
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  });
  document.querySelectorAll("[data-copy-link]").forEach(function (button) {
    var field = button.parentElement.querySelector("[data-results-link]");
    if (!field || !navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(field.value).then(function () {
        button.textContent = "Copied";
      }, function () {
        field.select();
      });
    });
  });
})();
