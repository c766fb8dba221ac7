// Progressive enhancement only: every form works without this file.
// With it: the card keypad, buys and hands sent without reloading the page, kept on the phone
// while offline and sent once when the connection returns, typed cards kept across reloads,
// the live scoreboard, and the screen kept awake during a game.
(function () {
  "use strict";

  var OUTBOX = "scorekeeper-outbox"; // forms waiting for a connection, oldest first
  var SENT = "scorekeeper-sent"; // what the last sending found, shown after the reload
  var WAKE = "scorekeeper-wake-lock"; // "off" when the user turned keeping the screen on off
  var DRAFT = "scorekeeper-draft:"; // + card-entry address: what was typed there, and on which version

  function read(storage, key, fallback) {
    try {
      var value = JSON.parse(storage.getItem(key));
      return value === null ? fallback : value;
    } catch (e) {
      return fallback;
    }
  }
  function write(storage, key, value) {
    try {
      storage.setItem(key, JSON.stringify(value));
    } catch (e) { /* private mode or full: the page still works, it just forgets */ }
  }
  function outbox() { return read(localStorage, OUTBOX, []); }

  // crypto.randomUUID needs HTTPS; getRandomValues works on a home network over plain HTTP too.
  function newId() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  // Not form.action: a field named "action" (the card-entry form's buttons) hides it.
  function actionOf(form) { return new URL(form.getAttribute("action") || location.href, location.href).href; }

  // -- card keypad ------------------------------------------------------------------------
  // One hand shows at a time; the switcher picks whose, and one keypad fixed at the bottom of the
  // screen adds cards to it. Nothing above the keypad changes its height, so no key moves under a
  // finger while cards are tapped or removed, or players switched.

  function setupHand(hand, changed) {
    var inputs = {};
    hand.querySelectorAll("input[data-key]").forEach(function (input) {
      inputs[input.getAttribute("data-key")] = input;
    });
    var chosen = hand.querySelector("[data-chosen]");
    var total = hand.querySelector("input[data-total]");
    var points = hand.querySelector("[data-hand-points]");
    var event = hand.querySelector("input[data-event-points]");
    var order = []; // card codes, first tapped first: the chips keep that order
    var counts = {};
    Object.keys(inputs).forEach(function (code) {
      counts[code] = parseInt(inputs[code].value, 10) || 0;
      if (counts[code]) order.push(code);
    });
    var state = { cards: 0, points: 0 };

    function render() {
      chosen.textContent = "";
      var sum = 0, cards = 0;
      order.forEach(function (code) {
        var input = inputs[code], n = counts[code], label = input.getAttribute("data-label");
        sum += n * parseInt(input.getAttribute("data-points"), 10);
        cards += n;
        var chip = document.createElement("button");
        chip.type = "button";
        chip.className = "card-chip";
        chip.textContent = n > 1 ? label + " ×" + n : label;
        chip.setAttribute("aria-label", "Remove one " + label + (n > 1 ? " of " + n : ""));
        chip.addEventListener("click", function () { take(code); });
        chosen.appendChild(chip);
      });
      if (!order.length) {
        var hint = document.createElement("span");
        hint.className = "muted small";
        hint.textContent = "Tap the cards left in hand";
        chosen.appendChild(hint);
      }
      var typed = total && total.value.trim() !== "" ? parseInt(total.value, 10) : null;
      // A named-event bonus (e.g. cutting the exact number of cards) counts for anyone.
      var extra = event && event.checked ? parseInt(event.getAttribute("data-event-points"), 10) : 0;
      var value = sum + extra;
      if (hand.classList.contains("is-out")) {
        var bonus = hand.form.querySelector("input[data-bonus-points]:checked");
        value = parseInt(hand.form.getAttribute("data-out-points") || "0", 10) + extra +
          (bonus ? parseInt(bonus.getAttribute("data-bonus-points"), 10) : 0);
      }
      else if (typed !== null && !isNaN(typed)) value = typed + extra;
      points.textContent = value ? value + " pts" : "0";
      state.cards = typed !== null && !isNaN(typed) && !cards ? null : cards;
      state.points = value;
      changed();
    }
    function sync() {
      Object.keys(inputs).forEach(function (code) { inputs[code].value = counts[code] ? String(counts[code]) : ""; });
      order = order.filter(function (code) { return counts[code] > 0; });
      render();
    }
    function take(code) {
      counts[code] -= 1;
      sync();
    }
    state.add = function (code) {
      if (!inputs[code] || hand.classList.contains("is-out")) return;
      if (!counts[code]) order.push(code);
      counts[code] = (counts[code] || 0) + 1;
      sync();
    };
    state.render = render;
    if (total) total.addEventListener("input", render);
    if (event) event.addEventListener("change", render);
    chosen.hidden = false;
    return state;
  }

  function setupEntry(form) {
    restoreDraft(form);
    form.classList.add("js-keypad");
    var hands = Array.prototype.slice.call(form.querySelectorAll("[data-hand]"));
    var switches = {};
    form.querySelectorAll("[data-switch]").forEach(function (button) {
      switches[button.getAttribute("data-switch")] = button;
    });
    var keypad = form.querySelector("[data-keypad]");
    var next = form.querySelector("[data-next]");
    var states = {};
    var active = null;

    function idOf(hand) { return hand.getAttribute("data-hand"); }
    function nameOf(hand) { return hand.querySelector("legend span").textContent; }
    function showSum(hand) {
      var state = states[idOf(hand)], sum = switches[idOf(hand)].querySelector("[data-switch-sum]");
      if (!state) return;
      if (!isEmpty(hand)) unasked(hand);
      // Points first: a narrow button cuts the end off.
      if (hand.classList.contains("is-out")) sum.textContent = state.points + " · went out";
      else if (state.cards === null) sum.textContent = state.points + " · counted";
      else sum.textContent = state.points + " · " + state.cards + (state.cards === 1 ? " card" : " cards");
    }
    function activate(hand) {
      active = hand;
      hands.forEach(function (h) {
        h.classList.toggle("is-active", h === hand);
        switches[idOf(h)].setAttribute("aria-pressed", h === hand ? "true" : "false");
      });
      var name = nameOf(hand), out = hand.classList.contains("is-out");
      keypad.querySelectorAll("[data-add]").forEach(function (key) {
        key.disabled = out;
        key.setAttribute("aria-label", key.getAttribute("data-label") + ", " + key.getAttribute("data-points") +
          " points, to " + name);
      });
    }
    function following(hand) {
      var start = hands.indexOf(hand);
      for (var step = 1; step <= hands.length; step++) {
        var candidate = hands[(start + step) % hands.length];
        if (!candidate.classList.contains("is-out")) return candidate;
      }
      return hand;
    }

    // Each hand's points as the keypad shows them, kept with a hand saved offline so the round
    // screen can show the totals it leads to until the server has it.
    form.handPoints = function () {
      var points = {};
      hands.forEach(function (hand) { points[idOf(hand)] = states[idOf(hand)].points; });
      return points;
    };
    var save = function () { saveDraft(form); };
    hands.forEach(function (hand) {
      states[idOf(hand)] = setupHand(hand, function () { showSum(hand); save(); });
      switches[idOf(hand)].addEventListener("click", function () { activate(hand); });
    });
    // Who went out (and how) folds away once the cards are being tapped.
    keypad.addEventListener("click", function (event) {
      var key = event.target.closest("[data-add]");
      if (key && active) {
        states[idOf(active)].add(key.getAttribute("data-add"));
        warnBeyondDecks(key);
      }
      fold(true);
    });
    // The decks hold so many of each card: say so at the tap that goes past it, not only at Check.
    function warnBeyondDecks(key) {
      var code = key.getAttribute("data-add"), copies = parseInt(key.getAttribute("data-copies"), 10);
      var tapped = 0;
      hands.forEach(function (hand) {
        var input = hand.querySelector("input[data-key='" + code + "']");
        if (!hand.classList.contains("is-out")) tapped += parseInt(input && input.value, 10) || 0;
      });
      var warning = active.querySelector("[data-tap-warning]");
      warning.hidden = tapped <= copies;
      warning.textContent = tapped > copies ? key.getAttribute("data-label") + ": " + tapped +
        " tapped in all, but the decks in play hold only " + copies + "." : "";
    }
    next.addEventListener("click", function () { activate(following(active)); fold(true); });

    // A player who did not go out with nothing entered is asked about here, before anything is
    // sent (or kept offline): the first such hand opens with the question beside it.
    function isEmpty(hand) {
      var total = hand.querySelector("input[data-total]");
      return !hand.classList.contains("is-out") && states[idOf(hand)].cards === 0 &&
        !(total && total.value.trim());
    }
    function unasked(hand) {
      var warning = hand.querySelector("[data-tap-warning]");
      switches[idOf(hand)].classList.remove("is-empty");
      if (warning.hasAttribute("data-empty")) {
        warning.hidden = true;
        warning.removeAttribute("data-empty");
      }
    }
    form.addEventListener("submit", function (event) {
      if (!event.submitter || event.submitter.value !== "review") return;
      if (!form.querySelector("input[data-went-out]:checked")) return; // the server asks who went out
      var empty = hands.filter(isEmpty);
      if (!empty.length) return;
      event.preventDefault();
      empty.forEach(function (hand) {
        var name = nameOf(hand), warning = hand.querySelector("[data-tap-warning]");
        switches[idOf(hand)].classList.add("is-empty");
        warning.setAttribute("data-empty", "");
        warning.hidden = false;
        warning.textContent = "Nothing entered for " + name + ": tap the cards left in " + name +
          "'s hand, or type their total.";
      });
      activate(empty[0]);
      fold(true);
    });
    Object.keys(switches).forEach(function (id) {
      switches[id].addEventListener("click", function () { fold(true); });
    });

    var outBox = form.querySelector(".went-out");
    var summary = outBox.querySelector("[data-out-summary]");
    function fold(folded) {
      var checked = form.querySelector("input[data-went-out]:checked");
      var bonus = form.querySelector("input[data-bonus-points]:checked");
      folded = folded && !!checked && !outBox.classList.contains("has-error");
      outBox.classList.toggle("folded", folded);
      summary.hidden = !folded;
      if (folded) {
        var how = bonus && bonus.parentNode.textContent.trim();
        summary.querySelector("[data-out-text]").textContent = checked.parentNode.textContent.trim() +
          (how ? ": " + how.charAt(0).toLowerCase() + how.slice(1) : " went out");
      }
    }
    summary.querySelector("[data-out-change]").addEventListener("click", function () {
      fold(false);
      var checked = form.querySelector("input[data-went-out]:checked");
      if (checked) checked.focus();
    });

    function markOut() {
      var checked = form.querySelector("input[data-went-out]:checked");
      hands.forEach(function (hand) {
        var out = checked && checked.value === idOf(hand);
        hand.classList.toggle("is-out", !!out);
        hand.querySelector("[data-out-note]").hidden = !out;
        states[idOf(hand)].render();
      });
      // The one who went out has no cards to tap: go on to the next player.
      if (active && active.classList.contains("is-out")) activate(following(active));
      else if (active) activate(active);
    }
    form.querySelectorAll("input[data-went-out], input[data-bonus-points]").forEach(function (radio) {
      radio.addEventListener("change", markOut);
    });
    form.addEventListener("input", save);
    form.addEventListener("change", save);
    form.querySelector("[data-switcher]").hidden = false;
    keypad.hidden = false;
    next.hidden = false;
    // A page drawn again with a refusal opens on the first hand with one.
    activate(hands.filter(function (h) { return h.classList.contains("has-error"); })[0] || hands[0]);
    markOut();
    fold(true);
    keepClearOfKeypad(form.querySelector("[data-entry-actions]"));
    if (outbox().some(function (item) { return item.url === actionOf(form); })) markKept(form);
  }

  // The page scrolls above the fixed keypad, never under it.
  function keepClearOfKeypad(bar) {
    function pad() {
      document.body.style.paddingBottom = (bar.offsetHeight + 16) + "px";
      document.documentElement.style.scrollPaddingBottom = (bar.offsetHeight + 12) + "px"; // a focused field too
    }
    pad();
    window.addEventListener("resize", pad);
  }

  // -- seating: ▲ and ▼ move a player in place (without the script each is a round trip) ------

  function setupSeats(list) {
    list.addEventListener("click", function (event) {
      var button = event.target.closest("button[name=move]");
      if (!button) return;
      event.preventDefault();
      var seat = button.closest("li");
      var up = button.value.indexOf("up:") === 0;
      var other = up ? seat.previousElementSibling : seat.nextElementSibling;
      if (!other) return;
      list.insertBefore(up ? seat : other, up ? other : seat);
      var seats = list.querySelectorAll("li");
      seats.forEach(function (li, index) {
        var moveUp = li.querySelector("button[value^='up:']"), moveDown = li.querySelector("button[value^='down:']");
        moveUp.value = "up:" + index;
        moveDown.value = "down:" + index;
        moveUp.disabled = index === 0;
        moveDown.disabled = index === seats.length - 1;
      });
      (button.disabled ? seat.querySelector("button:not(:disabled)") : button).focus();
    });
  }

  // Kept to send: the form's main button says so, and no button of it can send the hand again.
  function markKept(form) {
    var buttons = form.querySelectorAll("button[type=submit]");
    var main = form.querySelector("button[type=submit][value=save], button[type=submit][value=review]") || buttons[0];
    buttons.forEach(function (button) { button.disabled = true; });
    main.textContent = "Saved on this phone — will send";
  }

  // -- nothing typed is lost: drafts of the card-entry form --------------------------------

  function draftKey(form) { return DRAFT + actionOf(form); }
  function versionOf(form) {
    var version = form.querySelector("input[name=version]");
    return version ? version.value : "";
  }
  function saveDraft(form) {
    var fields = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrf_token" && name !== "version") fields.push([name, String(value)]);
    });
    write(localStorage, draftKey(form), { version: versionOf(form), fields: fields });
  }

  function restoreDraft(form) {
    // A page the server drew again with messages already shows what was sent.
    if (form.querySelector(".errors")) return;
    var draft = read(localStorage, draftKey(form), null);
    if (!draft || !draft.fields) return;
    // Buys or marks changed on the round screen since: the cards come back, the marks stay as stored.
    var marksToo = draft.version === versionOf(form);
    var values = {};
    draft.fields.forEach(function (pair) { (values[pair[0]] = values[pair[0]] || []).push(pair[1]); });
    Array.prototype.forEach.call(form.elements, function (input) {
      if (!input.name || input.type === "hidden" || input.type === "submit") return;
      if (!marksToo && /-(buys|laid_down)$/.test(input.name)) return;
      var wanted = values[input.name] || [];
      if (input.type === "checkbox" || input.type === "radio") input.checked = wanted.indexOf(input.value) >= 0;
      else input.value = wanted.length ? wanted[0] : "";
    });
  }

  // -- sending forms without a reload, and keeping them while offline ----------------------

  function fieldsOf(form, submitter) {
    var fields = [];
    new FormData(form).forEach(function (value, name) { fields.push([name, String(value)]); });
    if (submitter && submitter.name) fields.push([submitter.name, submitter.value]);
    return fields;
  }

  function post(item) {
    var body = new URLSearchParams();
    item.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    return fetch(item.url, { method: "POST", body: body, credentials: "same-origin" });
  }

  var FOCUSABLE = "button, a, input";

  // Draw the page the server answered with in place of this one, keeping the place on it.
  function show(html, url) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var active = document.activeElement;
    var focusIndex = Array.prototype.indexOf.call(document.querySelectorAll(FOCUSABLE), active);
    var label = active && active.getAttribute("aria-label");
    var samePage = url === location.href.split("#")[0];
    document.title = doc.title;
    document.body.className = doc.body.className;
    document.body.innerHTML = doc.body.innerHTML;
    history.replaceState(null, "", url);
    enhance();
    if (!samePage) window.scrollTo(0, 0);
    // Focus stays on the button just pressed (by its name, else its place), or goes to the news.
    var again = (label && document.querySelector('[aria-label="' + label.replace(/"/g, '\\"') + '"]')) ||
      (samePage && focusIndex >= 0 && document.querySelectorAll(FOCUSABLE)[focusIndex]);
    var message = document.querySelector(".flash, .row-message");
    if (again && !again.disabled) {
      again.focus({ preventScroll: true });
    } else if (message) {
      message.setAttribute("tabindex", "-1");
      message.focus({ preventScroll: true });
    }
  }

  document.addEventListener("submit", function (event) {
    var message = event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form.hasAttribute("data-queue") || !window.fetch) return;
    event.preventDefault();
    var item = {
      id: newId(),
      url: actionOf(form),
      page: location.pathname,
      label: form.getAttribute("data-queue"),
      fields: fieldsOf(form, event.submitter),
    };
    item.fields.push(["submission", item.id]);
    if (form.hasAttribute("data-save-offline")) item.draft = draftKey(form);
    if (navigator.onLine === false || outbox().length) {
      if (event.submitter && event.submitter.value === "change") history.back(); // to the cards, on this phone
      else keep(item, form);
      return;
    }
    form.setAttribute("aria-busy", "true");
    post(item).then(function (response) {
      return response.text().then(function (html) {
        if (item.draft && response.url !== item.url) localStorage.removeItem(item.draft);
        show(html, response.url);
        // The page a change led to (the round screen, standings), not a refusal drawn at the form's address.
        if (response.ok && response.redirected && new URL(response.url).pathname.indexOf("/games/") === 0) {
          keepCopy(response.url, html);
        }
      });
    }).catch(function () {
      form.removeAttribute("aria-busy");
      keep(item, form);
    });
  });

  // The phone's offline copy of a page (the service worker's cache) follows every change made in
  // place: the page the server drew after a buy, a Down mark, a hand or an undo. Changes kept
  // offline are drawn over that copy again from the outbox whenever it is opened.
  function keepCopy(url, html) {
    if (!window.caches) return;
    caches.keys().then(function (names) {
      var name = names.filter(function (n) { return n.indexOf("scorekeeper-") === 0; })[0];
      if (!name) return null; // no service worker here (plain HTTP): nothing to keep current
      return caches.open(name).then(function (cache) {
        return cache.put(url, new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
      });
    }).catch(function () { /* storage full or refused: the next page seen online is kept */ });
  }

  function keep(item, form) {
    // Offline there is no server to check the points first: the hand is kept to be saved.
    if (form.hasAttribute("data-save-offline")) {
      item.fields = item.fields.filter(function (pair) { return pair[0] !== "action"; });
      item.fields.push(["action", "save"]);
    }
    if (form.handPoints) item.points = form.handPoints();
    else if (form.hasAttribute("data-hand-points")) item.points = JSON.parse(form.getAttribute("data-hand-points"));
    var items = outbox();
    items.push(item);
    write(localStorage, OUTBOX, items);
    showLocally(item);
    if (form.hasAttribute("data-save-offline")) markKept(form);
    drawOutbox();
    // On to the game as it now is: the round screen the phone keeps, drawn with the next round.
    var screen = form.getAttribute("data-round-screen");
    if (screen && window.caches) {
      caches.match(screen, { ignoreVary: true }).then(function (hit) { if (hit) location.assign(screen); });
    }
  }

  // A hand of the round on screen kept on this phone: show the round after it (drawn by the server
  // ahead of time) with each total counting the kept hand, marked as not sent yet.
  function showAhead() {
    var view = document.querySelector("[data-round-view]");
    var ahead = document.querySelector("template[data-round-ahead]");
    if (!view || !ahead) return;
    var entry = view.getAttribute("data-entry");
    var kept = outbox().filter(function (item) {
      return item.points && new URL(item.url).pathname === entry;
    })[0];
    if (!kept) return;
    view.textContent = "";
    view.appendChild(ahead.content.cloneNode(true));
    view.setAttribute("data-round-view", ahead.getAttribute("data-next") || "");
    view.querySelectorAll("[data-base]").forEach(function (total) {
      total.firstChild.textContent = String(parseInt(total.getAttribute("data-base"), 10) +
        (kept.points[total.getAttribute("data-player")] || 0));
      total.classList.add("not-sent-total");
    });
    var number = view.getAttribute("data-round-view");
    if (number) document.title = "Round " + number + " (not sent yet)";
  }

  // What a kept buy or mark would change, shown on the round screen until it is sent.
  function showLocally(item) {
    if (item.page !== location.pathname) return;
    // Only what belongs to the round on screen (a round kept offline moves the screen on).
    var view = document.querySelector("[data-round-view]"), round = /\/rounds\/(\d+)\//.exec(item.url);
    if (view && round && round[1] !== view.getAttribute("data-round-view")) return;
    var player = null;
    item.fields.forEach(function (pair) { if (pair[0] === "player") player = pair[1]; });
    var row = player && document.getElementById("player-" + player);
    if (!row) return;
    var count = row.querySelector(".buy-count");
    var parts = count ? count.textContent.split("/") : null;
    if (/\/buy$/.test(item.url) && parts) parts[0] = Math.min(+parts[0] + 1, +parts[1]);
    else if (/\/unbuy$/.test(item.url) && parts) parts[0] = Math.max(+parts[0] - 1, 0);
    else if (/\/down$/.test(item.url)) {
      var toggle = row.querySelector(".btn-toggle");
      toggle.classList.toggle("on");
      toggle.textContent = toggle.classList.contains("on") ? "Down ✓" : "Down?";
    }
    if (parts) count.textContent = parts.join("/");
    row.classList.add("kept");
  }

  function drawOutbox() {
    var box = document.querySelector("[data-outbox]");
    if (!box) return;
    var items = outbox();
    var sent = read(sessionStorage, SENT, null);
    box.textContent = "";
    if (sent) {
      sessionStorage.removeItem(SENT);
      var done = document.createElement("p");
      done.className = "flash flash-" + (sent.problems.length ? "error" : "success");
      done.setAttribute("role", sent.problems.length ? "alert" : "status");
      // Each problem below names its entry and the server's reason.
      var refused = sent.problems.length;
      done.textContent = (sent.count === 1 ? "Sent the entry" : "Sent the " + sent.count + " entries") +
        " saved on this phone." + (!refused ? "" : sent.count === 1 ? " It was not taken:" :
          " " + refused + " of them " + (refused === 1 ? "was" : "were") + " not taken:");
      box.appendChild(done);
      sent.problems.forEach(function (problem) {
        var line = document.createElement("p");
        line.className = "flash flash-error";
        line.textContent = problem;
        box.appendChild(line);
      });
    }
    if (items.length) {
      var kept = document.createElement("div");
      kept.className = "flash outbox-list";
      kept.setAttribute("role", "status");
      var title = document.createElement("p");
      title.innerHTML = "<b>Saved on this phone — will send</b> when the connection returns:";
      kept.appendChild(title);
      var list = document.createElement("ul");
      items.forEach(function (item) {
        var li = document.createElement("li");
        li.textContent = item.label;
        list.appendChild(li);
      });
      kept.appendChild(list);
      box.appendChild(kept);
    } else if (navigator.onLine === false) {
      var offline = document.createElement("p");
      offline.className = "flash";
      offline.setAttribute("role", "status");
      offline.textContent = "No connection: this is the last state this phone saw. Buys and hands you enter are kept here and sent later.";
      box.appendChild(offline);
    }
    box.hidden = !box.childNodes.length;
  }

  // Messages a page shows when the server refused or corrected what was sent.
  function problemsIn(html, response) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var texts = Array.prototype.map.call(
      doc.querySelectorAll(".flash-error, .row-message, .errors.block li, .error-page p:first-of-type"),
      function (el) { return el.textContent.trim(); }
    ).filter(Boolean);
    if (!texts.length && doc.querySelector("form .errors")) texts.push("Some cards were not accepted; open the round and check them.");
    var signIn = document.documentElement.getAttribute("data-sign-in");
    if (!texts.length && response.redirected && new URL(response.url).pathname === signIn) {
      texts.push("Not sent: this phone was signed out. Sign in and enter it again.");
    }
    return texts;
  }

  var sending = false;
  function sendKept() {
    if (sending || navigator.onLine === false || !outbox().length) return;
    sending = true;
    var report = { count: 0, problems: [] };
    var goTo = null;
    (function next() {
      var items = outbox();
      if (!items.length) {
        // Fresh state from the server; a hand kept on its own card-entry page moves on with it.
        write(sessionStorage, SENT, report);
        if (goTo) location.assign(goTo);
        else location.reload();
        return;
      }
      var item = items[0];
      post(item).then(function (response) {
        return response.text().then(function (html) {
          problemsIn(html, response).forEach(function (text) { report.problems.push(item.label + ": " + text); });
          report.count += 1;
          write(localStorage, OUTBOX, outbox().filter(function (other) { return other.id !== item.id; }));
          if (item.draft) localStorage.removeItem(item.draft);
          if (item.draft && item.page === location.pathname) goTo = response.url;
          next();
        });
      }).catch(function () {
        sending = false; // still no connection: try again later
        if (report.count) write(sessionStorage, SENT, report);
        drawOutbox();
      });
    })();
  }

  window.addEventListener("online", sendKept);
  window.addEventListener("offline", drawOutbox);
  setInterval(sendKept, 10000);

  // -- screen wake lock -------------------------------------------------------------------

  var wakeLock = null;
  function wantAwake() { return localStorage.getItem(WAKE) !== "off" && document.querySelector("[data-wake-lock]"); }
  function holdScreen() {
    if (!("wakeLock" in navigator) || wakeLock || !wantAwake() || document.hidden) return;
    navigator.wakeLock.request("screen").then(function (lock) {
      wakeLock = lock;
      lock.addEventListener("release", function () { wakeLock = null; drawWakeLock(); });
      drawWakeLock();
    }).catch(function () { /* refused (battery saver): the toggle still shows what was asked */ });
  }
  function drawWakeLock() {
    var button = document.querySelector("[data-wake-lock]");
    if (!button) return;
    var on = localStorage.getItem(WAKE) !== "off";
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? (wakeLock ? "Screen stays on ✓" : "Screen stays on") : "Keep screen on";
  }
  function setupWakeLock(button) {
    if (!("wakeLock" in navigator)) return; // stays hidden where the browser cannot do it
    button.hidden = false;
    button.addEventListener("click", function () {
      var on = localStorage.getItem(WAKE) === "off";
      localStorage.setItem(WAKE, on ? "on" : "off");
      if (on) holdScreen();
      else if (wakeLock) wakeLock.release();
      drawWakeLock();
    });
    drawWakeLock();
    holdScreen();
  }
  document.addEventListener("visibilitychange", holdScreen);

  // -- live scoreboard --------------------------------------------------------------------

  function setupLiveBoard(board) {
    var source = board.getAttribute("data-live-board");
    var etag = board.getAttribute("data-etag");
    var every = parseInt(board.getAttribute("data-poll-ms"), 10) || 2000;
    var status = document.querySelector("[data-live-status]");
    function say(text) { if (status) status.textContent = text; }
    function poll() {
      if (document.hidden) return setTimeout(poll, every);
      fetch(source, { headers: etag ? { "If-None-Match": etag } : {}, cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          if (response.status === 404) {
            say("This scoreboard link no longer works.");
            return false;
          }
          if (response.status === 304) return true;
          if (!response.ok) throw new Error(response.status);
          etag = response.headers.get("ETag");
          return response.text().then(function (html) {
            board.innerHTML = html;
            say("Updated " + new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) + ".");
            return true;
          });
        })
        .catch(function () {
          say("No connection: showing the last scores seen.");
          return true;
        })
        .then(function (goOn) { if (goOn) setTimeout(poll, every); });
    }
    setTimeout(poll, every);
  }

  // -- sharing a finished game's recap ---------------------------------------------------
  // The phone's share sheet where there is one; else the clipboard, said so on screen; else the
  // text shown selected, to copy by hand (plain HTTP on a home network has neither).

  function setupShare(box) {
    var button = box.querySelector("[data-share-button]");
    var status = box.querySelector("[data-share-status]");
    var field = box.querySelector("[data-share-text]");
    var text = field.value;
    function showText() {
      field.hidden = false;
      field.focus();
      field.select();
      status.textContent = "Copy the text below.";
    }
    function copy() {
      if (!navigator.clipboard || !navigator.clipboard.writeText) return showText();
      navigator.clipboard.writeText(text).then(function () {
        status.textContent = "Copied ✓ Paste it into the family chat.";
      }, showText);
    }
    button.addEventListener("click", function () {
      status.textContent = "";
      if (!navigator.share) return copy();
      navigator.share({ title: box.getAttribute("data-share-title"), text: text }).catch(function (error) {
        if (!error || error.name !== "AbortError") copy(); // closing the share sheet is no failure
      });
    });
    button.hidden = false;
  }

  // -- paper grid: each player's total so far, to compare with the sheet's ------------------

  function setupPaper(form) {
    var foot = form.querySelector("[data-paper-totals]");
    if (!foot) return;
    var cells = foot.querySelectorAll("[data-total]");
    function points(text) {
      var raw = text.replace(/\s+/g, "").replace(/^[\u2212\u2013]/, "-");
      return /^[-+]?\d{1,6}$/.test(raw) ? parseInt(raw, 10) : 0; // what the server cannot read counts nothing
    }
    function sum() {
      var totals = Array.prototype.map.call(cells, function () { return 0; });
      form.querySelectorAll("tbody.paper-round").forEach(function (round) {
        var out = parseInt(round.getAttribute("data-out-points"), 10) || 0;
        round.querySelectorAll(".cells td").forEach(function (td, column) {
          var typed = td.querySelector("[data-cell]"), tapped = td.querySelector("input[type=radio]:checked");
          if (!typed) totals[column] += parseInt(td.getAttribute("data-points"), 10) || 0;
          else if (typed.value.trim()) totals[column] += points(typed.value);
          else if (tapped) totals[column] += out;
        });
      });
      cells.forEach(function (cell, column) { cell.textContent = String(totals[column]).replace("-", "\u2212"); });
    }
    form.addEventListener("input", sum);
    form.addEventListener("change", sum);
    foot.hidden = false;
    sum();
  }

  // -- start ------------------------------------------------------------------------------

  function enhance() {
    document.querySelectorAll("form[data-entry]").forEach(setupEntry);
    document.querySelectorAll("[data-seats]").forEach(setupSeats);
    document.querySelectorAll("form[data-paper]").forEach(setupPaper);
    document.querySelectorAll("[data-wake-lock]").forEach(setupWakeLock);
    document.querySelectorAll("[data-share]").forEach(setupShare);
    showAhead();
    outbox().forEach(showLocally);
    drawOutbox();
  }

  enhance();
  document.querySelectorAll("[data-live-board]").forEach(setupLiveBoard);
  sendKept();

  var worker = document.documentElement.getAttribute("data-service-worker");
  if (worker && "serviceWorker" in navigator) {
    navigator.serviceWorker.register(worker).catch(function () { /* plain HTTP: no offline copy */ });
  }
})();
