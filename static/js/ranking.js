/* The ranking component: drag and drop (SortableJS), up/down buttons for keyboard and touch, and the
   position selects of the no-JavaScript form kept in step with the list, so the server sees one format.
   Buttons of the form marked data-enabled-when="moved" / "unmoved" are enabled only while the list differs
   from / equals the order first shown (data-initial-order), so no answer is ever a default. (The time on the
   item is timed-form.js's.) */
(function () {
  "use strict";

  function items(list) {
    return Array.prototype.slice.call(list.querySelectorAll(".ranking-item"));
  }

  function renumber(list) {
    var rows = items(list);
    rows.forEach(function (row, index) {
      var position = String(index + 1);
      var select = row.querySelector("select");
      if (select) select.value = position;
      row.querySelector(".ranking-rank").textContent = position;
      row.querySelector('[data-move="up"]').disabled = index === 0;
      row.querySelector('[data-move="down"]').disabled = index === rows.length - 1;
    });
  }

  function order(list) {
    return items(list).map(function (row) { return row.dataset.letter; }).join("");
  }

  function syncChoices(widget, list) {
    var form = widget.closest("form");
    if (!form || !widget.dataset.initialOrder) return;
    var moved = order(list) !== widget.dataset.initialOrder;
    form.querySelectorAll("[data-enabled-when]").forEach(function (button) {
      button.disabled = button.dataset.enabledWhen === "moved" ? !moved : moved;
    });
    form.querySelectorAll("[data-ranking-reset]").forEach(function (button) {
      button.hidden = !moved;
    });
  }

  function reset(widget, list) {
    var rows = items(list);
    widget.dataset.initialOrder.split("").forEach(function (letter) {
      var row = rows.filter(function (r) { return r.dataset.letter === letter; })[0];
      if (row) list.appendChild(row);
    });
    renumber(list);
    syncChoices(widget, list);
    var status = widget.querySelector("[data-ranking-status]");
    status.textContent = status.dataset.resetMessage;
    var first = list.querySelector("[data-move]:not([disabled])");
    if (first) first.focus();
  }

  function announce(widget, row) {
    var status = widget.querySelector("[data-ranking-status]");
    var position = items(row.parentNode).indexOf(row) + 1;
    status.textContent = status.dataset.movedMessage
      .replace("{letter}", row.dataset.letter)
      .replace("{position}", position);
  }

  function move(widget, list, button) {
    var row = button.closest(".ranking-item");
    if (button.dataset.move === "up" && row.previousElementSibling) {
      list.insertBefore(row, row.previousElementSibling);
    } else if (button.dataset.move === "down" && row.nextElementSibling) {
      list.insertBefore(row.nextElementSibling, row);
    }
    renumber(list);
    syncChoices(widget, list);
    announce(widget, row);
    // Keep focus on the pressed button, or on its partner at either end of the list.
    var target = button.disabled ? row.querySelector('[data-move]:not([disabled])') : button;
    if (target) target.focus();
  }

  function sortFromSelects(list) {
    // After a reload the selects may hold positions the list does not show yet.
    var rows = items(list);
    var positions = rows.map(function (row) {
      var select = row.querySelector("select");
      return select ? parseInt(select.value, 10) : NaN;
    });
    var distinct = positions.every(function (p, i) { return p >= 1 && positions.indexOf(p) === i; });
    if (!distinct) return;
    rows.slice().sort(function (a, b) {
      return positions[rows.indexOf(a)] - positions[rows.indexOf(b)];
    }).forEach(function (row) { list.appendChild(row); });
  }

  function enhance(widget) {
    var list = widget.querySelector("[data-ranking-list]");
    var form = widget.closest("form");
    widget.classList.add("ranking--enhanced");
    if (form) form.classList.add("js-ranking");
    sortFromSelects(list);
    renumber(list);
    syncChoices(widget, list);
    list.addEventListener("click", function (event) {
      var button = event.target.closest("[data-move]");
      if (button) move(widget, list, button);
    });
    if (form) {
      form.querySelectorAll("[data-ranking-reset]").forEach(function (button) {
        button.addEventListener("click", function () { reset(widget, list); });
      });
    }
    if (window.Sortable) {
      window.Sortable.create(list, {
        animation: 150,
        handle: ".ranking-handle",
        ghostClass: "ranking-item--ghost",
        onEnd: function (event) {
          renumber(list);
          syncChoices(widget, list);
          announce(widget, event.item);
        }
      });
    }
  }

  document.querySelectorAll("[data-ranking]").forEach(enhance);
})();
