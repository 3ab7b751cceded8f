/* Sortable tables: a table marked data-sortable gets a button in every column heading marked data-sort
   ("number" or "text"); choosing it sorts the body's rows by that column's data-value (or text), numbers highest
   first and text from A (what a reader of a leaderboard looks for first), and choosing it again reverses the order. The footer (mean and range rows) stays put. Without JavaScript the table is the
   server's order. No inline handler, so the strict Content Security Policy allows it. */
(function () {
  "use strict";

  function cellValue(row, index, kind) {
    var cell = row.children[index];
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (kind !== "number") return raw.toLowerCase();
    var number = parseFloat(raw);
    return isNaN(number) ? null : number;
  }

  function compare(a, b, descending) {
    if (a === b) return 0;
    if (a === null) return 1; // no value: always last
    if (b === null) return -1;
    var order = a < b ? -1 : 1;
    return descending ? -order : order;
  }

  function sortBy(table, heading, index) {
    var kind = heading.getAttribute("data-sort");
    var current = heading.getAttribute("aria-sort");
    var descending = current ? current === "ascending" : kind === "number";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      return compare(cellValue(a, index, kind), cellValue(b, index, kind), descending);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    heading.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  Array.prototype.forEach.call(document.querySelectorAll("table[data-sortable]"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (heading, index) {
      if (!heading.hasAttribute("data-sort")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort-button";
      while (heading.firstChild) button.appendChild(heading.firstChild);
      heading.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, heading, index); });
    });
  });
})();
