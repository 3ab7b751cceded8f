/* A form marked data-timed sends, in its field marked data-elapsed, the milliseconds from the moment its page could
   be seen (this deferred script runs once the page is parsed, and again when the back button shows it from the
   browser's cache) to the press of a button. The server keeps the figure only when it is plausible. */
(function () {
  "use strict";
  if (!window.performance) return;
  var shownAt = window.performance.now();
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) shownAt = window.performance.now();
  });
  document.querySelectorAll("form[data-timed]").forEach(function (form) {
    form.addEventListener("submit", function () {
      var field = form.querySelector("[data-elapsed]");
      if (field) field.value = String(Math.round(window.performance.now() - shownAt));
    });
  });
})();
