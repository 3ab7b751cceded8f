/* Thank-you page: send a panel respondent back to the panel a few seconds after their last answer was saved.
   The link and the code stay on the page as the fallback without JavaScript. */
(function () {
  "use strict";
  var link = document.querySelector("[data-panel-redirect]");
  if (!link) return;
  window.setTimeout(function () { window.location.assign(link.href); }, 5000);
})();
