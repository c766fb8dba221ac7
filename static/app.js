// Progressive enhancement only: every form works without this file.
(function () {
  "use strict";

  // Ask before destructive actions (undo a round).
  document.addEventListener("submit", function (event) {
    var message = event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });

  // Card keypad: taps add cards to the count inputs the server reads.
  function setupHand(hand, form) {
    var inputs = {};
    hand.querySelectorAll("input[data-key]").forEach(function (input) {
      inputs[input.getAttribute("data-key")] = input;
    });
    var chosen = hand.querySelector("[data-chosen]");
    var keypad = hand.querySelector("[data-keypad]");
    var total = hand.querySelector("input[data-total]");
    var points = hand.querySelector("[data-hand-points]");
    var order = [];
    Object.keys(inputs).forEach(function (code) {
      var n = parseInt(inputs[code].value, 10) || 0;
      for (var i = 0; i < n; i++) order.push(code);
    });

    function render() {
      chosen.textContent = "";
      var sum = 0;
      order.forEach(function (code, index) {
        var input = inputs[code];
        sum += parseInt(input.getAttribute("data-points"), 10);
        var chip = document.createElement("button");
        chip.type = "button";
        chip.className = "card-chip";
        chip.textContent = input.getAttribute("data-label") + " ×";
        chip.setAttribute("aria-label", "Remove " + input.getAttribute("data-label"));
        chip.addEventListener("click", function () { remove(index); });
        chosen.appendChild(chip);
      });
      if (!order.length) {
        var hint = document.createElement("span");
        hint.className = "muted small";
        hint.textContent = "Tap the cards left in hand";
        chosen.appendChild(hint);
      }
      var typed = total && total.value.trim() !== "" ? parseInt(total.value, 10) : null;
      if (hand.classList.contains("is-out")) points.textContent = "0";
      else if (typed !== null && !isNaN(typed)) points.textContent = typed + " pts";
      else points.textContent = sum + " pts";
    }
    function sync() {
      Object.keys(inputs).forEach(function (code) {
        var n = order.filter(function (c) { return c === code; }).length;
        inputs[code].value = n ? String(n) : "";
      });
      render();
    }
    function remove(index) { order.splice(index, 1); sync(); }

    keypad.addEventListener("click", function (event) {
      var key = event.target.closest("[data-add]");
      if (!key) return;
      order.push(key.getAttribute("data-add"));
      sync();
    });
    if (total) total.addEventListener("input", render);
    hand.render = render;
    chosen.hidden = false;
    keypad.hidden = false;
    render();
  }

  function setupEntry(form) {
    form.classList.add("js-keypad");
    var hands = form.querySelectorAll("[data-hand]");
    hands.forEach(function (hand) { setupHand(hand, form); });
    function markOut() {
      var checked = form.querySelector("input[data-went-out]:checked");
      hands.forEach(function (hand) {
        var out = checked && checked.value === hand.getAttribute("data-hand");
        hand.classList.toggle("is-out", !!out);
        hand.querySelector("[data-out-note]").hidden = !out;
        hand.render();
      });
    }
    form.querySelectorAll("input[data-went-out]").forEach(function (radio) {
      radio.addEventListener("change", markOut);
    });
    markOut();
  }

  document.querySelectorAll("form[data-entry]").forEach(setupEntry);
})();
