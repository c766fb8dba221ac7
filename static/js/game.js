// The game on the phone. The round screen carries the game's plan (every number of every round,
// from the rules core) and its state; from then on every screen of the game - the round being
// played, the card entry of any round, the check of the points, the standings - is drawn here, at
// once, from the plan and the actions queued on the phone, online or not.
//
// One source per screen: the markup is the server's (the round screen draws each screen once, the
// other screens hidden, with blank rows in <template>s), and this file only fills in the elements
// the templates mark with data- attributes. The server's pages stay whole without the script.
//
// Routes are the address's #fragment: "" the round being played, #enter its card entry, #edit-N
// the card entry of round N, #check-N the check of round N's points, #standings the standings.

import { roundProblems } from "./checks.js";
import { fillForm, keepClearOf, loadDraft, saveDraft, setupEntry } from "./keypad.js";
import { Plan, sentence } from "./plan.js";
import * as queue from "./queue.js";
import { drawReview } from "./review.js";
import { buyRefusal, drawRound } from "./round.js";
import { drawStandings } from "./standings.js";
import { currentIndex, shown, usedBefore } from "./state.js";
import { afterFrame, forget, read, write } from "./store.js";
import { drawSync } from "./sync.js";

const LOOK_EVERY_MS = 5000; // for other phones' changes, and to send what waits
const OFFLINE = "No connection: what you enter is kept on this phone and sent when the connection returns.";
const NO_ANSWER = "No answer from the server: what you enter is kept on this phone and sent when it answers.";

export function setupGame(root) {
  const plan = new Plan(JSON.parse(root.querySelector("[data-plan]").textContent));
  const game = plan.game;
  const stored = "scorekeeper-game:" + game;
  const views = {};
  root.querySelectorAll("[data-view]").forEach((view) => { views[view.getAttribute("data-view")] = view; });
  const form = views.entry.querySelector("form[data-entry]");
  const sync = root.querySelector("[data-sync]");
  let server = newest(plan.data.state, read(stored, null));
  let note = "";
  let opened = null; // the card entry being filled in: {index, number, base, fixing}
  let fixing = null; // a refused or disputed hand to open in the card entry next
  let checking = null; // the hands being checked: {hands}
  let shownView = null;
  let hash = location.hash === "#" ? "" : location.hash; // the screen shown, as its address says
  let said = ""; // what the last action did ("Round 2 saved."), until the next one
  let rowNote = null; // a buy refused on the phone, in its player's row: {player, text}

  // A page from the phone's copy (offline) may hold an older state than the one kept here.
  function newest(embedded, kept) {
    return kept && kept.rules === plan.data.rules && kept.state.revision > embedded.revision ? kept.state : embedded;
  }
  function keep(state) {
    if (state.revision < server.revision) return;
    server = state;
    write(stored, { rules: plan.data.rules, state });
  }
  const draftKey = (number) => "scorekeeper-draft:" + game + ":" + number;
  const items = () => queue.ofGame(game);
  // The game as shown: worked out again only when the server's state or the queue changed.
  let shownFor = null, shownState = null;
  const state = () => {
    const waiting = items(), key = server.revision + "|" + JSON.stringify(waiting);
    if (key !== shownFor) {
      shownFor = key;
      shownState = shown(plan, server, waiting);
    }
    return shownState;
  };
  const versionOf = (number) => server.rounds.find((r) => r.number === number).version;
  const baseFor = (number) => {
    const done = new Set(server.applied || []);
    return versionOf(number) + items().filter((a) => a.round === number && !done.has(a.id)).length;
  };

  // -- drawing -------------------------------------------------------------------------------
  function show(name) {
    Object.entries(views).forEach(([key, view]) => { view.hidden = key !== name; });
    if (name === shownView) return;
    const first = shownView === null;
    shownView = name;
    document.body.style.paddingBottom = "";
    if (first) return; // the page as it loaded: nothing moved
    window.scrollTo(0, 0);
    const heading = views[name].querySelector("h1");
    if (heading) { // a screen reader starts at the new screen's title, once it is on screen
      requestAnimationFrame(() => setTimeout(() => {
        heading.setAttribute("tabindex", "-1");
        heading.focus({ preventScroll: true });
        heading.addEventListener("blur", () => heading.removeAttribute("tabindex"), { once: true });
      }, 0));
    }
  }

  function draw() {
    const now = state(), waiting = items();
    root.setAttribute("data-pending", String(waiting.length));
    drawSync(sync, plan, waiting, navigator.onLine === false ? OFFLINE : note, choices, said);
    const index = currentIndex(now);
    let route = routeOf(hash);
    if (route.view === "edit" && !now.rounds[plan.rounds.indexOf(plan.round(route.number))].recorded &&
        plan.rounds[index] !== plan.round(route.number)) route = { view: "round" }; // a round still to come
    if (route.view === "standings" || ((route.view === "round" || route.view === "enter") && index < 0)) {
      drawStandings(views.standings, plan, now);
      show("standings");
      document.title = "Standings · Scorekeeper";
    } else if (route.view === "round") {
      drawRound(views.round, plan, now, index, rowNote);
      show("round");
      document.title = "Round " + plan.rounds[index].number + " · Scorekeeper";
    } else if (route.view === "check" && checking) {
      show("review");
    } else {
      const number = route.view === "edit" || route.view === "check" ? route.number : plan.rounds[index].number;
      if (fixing && fixing.round === number) openEntry(number, fixing);
      else if (!opened || opened.number !== number || (shownView !== "entry" && shownView !== "review")) openEntry(number);
      fixing = null;
      show("entry");
      keepClear();
    }
  }

  function routeOf(hash) {
    const match = /^#(enter|standings|edit-(\d+)|check-(\d+))$/.exec(hash);
    if (!match) return { view: "round" };
    if (match[2] || match[3]) {
      const number = parseInt(match[2] || match[3], 10);
      if (!plan.round(number)) return { view: "round" };
      return { view: match[2] ? "edit" : "check", number };
    }
    return { view: match[1] };
  }
  // Show the screen at ``target`` at once; the address follows a moment later, outside the tap
  // (changing it costs the browser more than drawing the screen does).
  function go(target) {
    const changed = target !== hash;
    hash = target;
    draw();
    if (changed) setTimeout(() => history.pushState(null, "", location.pathname + location.search + target), 0);
  }

  // -- the card entry of any round -------------------------------------------------------------
  const keepDraft = () => { if (opened) saveDraft(draftKey(opened.number), form, { base: opened.base }); };
  const entry = setupEntry(form, afterFrame(keepDraft));
  document.addEventListener("visibilitychange", () => { if (document.hidden) keepDraft(); });
  window.addEventListener("pagehide", keepDraft);
  const keepClear = keepClearOf(form.querySelector("[data-entry-actions]"));

  function fieldsOf(round) {
    const fields = [];
    round.results.forEach((r) => {
      const p = "p" + r.player + "-";
      if (r.laid_down) fields.push([p + "laid_down", "y"]);
      fields.push([p + "buys", String(r.buys)]);
      Object.entries(r.counts || {}).forEach(([code, n]) => fields.push([p + "k_" + code, String(n)]));
      if (r.total !== null && r.total !== undefined) fields.push([p + "total", String(r.total)]);
      const codes = (r.bonus || "").split(" ");
      if (plan.event && codes.indexOf(plan.event.code) >= 0) fields.push([p + "event", "y"]);
      if (r.went_out) {
        fields.push(["went_out", String(r.player)]);
        fields.push(["bonus", codes.find((code) => plan.outBonuses.has(code)) || ""]);
      }
    });
    if (!fields.some(([name]) => name === "bonus")) fields.push(["bonus", ""]);
    return fields;
  }

  // Open the card entry of round ``number``: its stored hands (or live buys and marks), what was
  // typed there before, or ``from``, a hand the server refused or another phone disputed.
  function openEntry(number, from) {
    const index = plan.rounds.findIndex((r) => r.number === number);
    const now = state(), round = now.rounds[index], rules = plan.rounds[index];
    const base = baseFor(number), draft = from ? null : loadDraft(draftKey(number));
    opened = { index, number, base, fixing: from ? from.id : null };
    clearErrors();
    if (from) {
      fillForm(form, fieldsOf({ results: from.hands.map((h) => Object.assign({}, h, {
        bonus: [h.went_out && h.bonus, h.event && plan.event && plan.event.code].filter(Boolean).join(" ") })) }));
    } else if (draft && draft.fields) {
      // Buys or marks changed on this phone since: the cards come back, the marks stay as they are now.
      const same = draft.base === base;
      fillForm(form, fieldsOf(round));
      fillForm(form, draft.fields, same ? null : (name) => /-(buys|laid_down)$/.test(name));
      if (!same) fillForm(form, fieldsOf(round), (name) => !/-(buys|laid_down)$/.test(name));
    } else {
      fillForm(form, fieldsOf(round));
    }
    form.setAttribute("data-out-points", String(rules.out_points));
    const editing = round.recorded;
    views.entry.querySelector("[data-slot=entry-title]").textContent = editing ? "Edit round " + number : "Round " + number + ": hand over";
    views.entry.querySelector("[data-slot=entry-contract]").textContent = sentence(rules.contract);
    form.querySelectorAll("[data-slot=out-points]").forEach((el) => { el.textContent = String(rules.out_points); });
    plan.seats.forEach((seat) => {
      const limit = plan.limit(rules, usedBefore(now, index, seat.id));
      const hand = form.querySelector("[data-hand='" + seat.id + "']");
      hand.querySelector("[data-slot=limit]").textContent = String(limit);
      hand.querySelector("[name='p" + seat.id + "-buys']").max = String(rules.most_buys);
    });
    entry.refresh();
  }

  function clearErrors() {
    form.querySelectorAll("[data-js-errors]").forEach((list) => list.remove());
    form.querySelectorAll(".has-error").forEach((el) => el.classList.remove("has-error"));
    form.querySelectorAll("ul.errors").forEach((list) => list.remove()); // the server's, for the round it drew
  }

  function errorList(texts, block) {
    const list = document.createElement("ul");
    list.className = "errors" + (block ? " block" : "");
    list.setAttribute("role", "alert");
    list.setAttribute("data-js-errors", "");
    texts.forEach((text) => { const li = document.createElement("li"); li.textContent = text; list.appendChild(li); });
    return list;
  }

  function showProblems(problems) {
    clearErrors();
    if (problems.table.length) form.insertBefore(errorList(problems.table, true), form.querySelector(".went-out"));
    let first = null;
    Object.entries(problems.players).forEach(([id, texts]) => {
      if (!texts.length) return;
      const hand = form.querySelector("[data-hand='" + id + "']");
      hand.classList.add("has-error");
      form.querySelector("[data-switch='" + id + "']").classList.add("has-error");
      hand.insertBefore(errorList(texts, false), hand.querySelector(".hand-body"));
      first = first || id;
    });
    if (first) entry.activate(first);
    if (problems.table.length) form.scrollIntoView({ block: "start" });
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!opened || entry.asked()) return;
    const hands = entry.read();
    const problems = roundProblems(plan, state(), opened.index, hands);
    if (problems.any) return showProblems(problems);
    checking = { hands };
    drawReview(views.review, plan, state(), opened.index, hands);
    go("#check-" + opened.number);
  });

  views.review.querySelector("[data-save]").addEventListener("click", () => {
    if (!opened || !checking) return;
    const action = { kind: "hand", round: opened.number, hands: checking.hands };
    const editing = state().rounds[opened.index].recorded;
    if (opened.fixing) {
      queue.replace(opened.fixing, action);
      queue.rebase(game, opened.number, versionOf(opened.number));
    } else {
      queue.add(game, action, opened.base);
    }
    forget(draftKey(opened.number));
    const finished = state().status === "finished";
    said = editing ? "Round " + opened.number + " updated." : finished ? "Last hand saved: the game is over."
      : "Round " + opened.number + " saved.";
    opened = null;
    checking = null;
    go(editing || finished ? "#standings" : "");
    sendNow();
  });

  // -- buys, Down marks and undo, from the round screen and the standings ------------------------
  root.addEventListener("submit", (event) => {
    const act = event.target.getAttribute("data-act");
    if (!act) return;
    event.preventDefault();
    const fields = new FormData(event.target), now = state();
    said = "";
    rowNote = null;
    if (act === "undo") {
      if (!window.confirm(event.target.getAttribute("data-confirm"))) return;
      const number = parseInt(fields.get("number"), 10);
      queue.add(game, { kind: "undo", round: number }, baseFor(number));
      said = "Round " + number + " is back in play; enter its cards again when the hand ends.";
      go("");
      sendNow();
      return;
    }
    const index = currentIndex(now), number = plan.rounds[index].number;
    const player = parseInt(fields.get("player"), 10);
    const refused = act === "buy" ? buyRefusal(plan, now, index, player) : "";
    if (refused) {
      rowNote = { player, text: refused };
      return draw();
    }
    const action = { kind: act, round: number, player };
    if (act === "down") action.laid_down = fields.get("laid_down") === "1";
    queue.add(game, action, baseFor(number));
    draw();
    sendNow();
  });

  document.addEventListener("click", (event) => {
    const link = event.target.closest("[data-go], [data-edit]");
    if (!link || event.defaultPrevented) return;
    event.preventDefault();
    said = "";
    rowNote = null;
    const where = link.getAttribute("data-go");
    if (link.hasAttribute("data-edit")) go("#edit-" + link.getAttribute("data-edit"));
    else if (where === "change") go(opened && state().rounds[opened.index].recorded ? "#edit-" + opened.number : "#enter");
    else go(where === "round" ? "" : "#" + where);
  });
  const followAddress = () => {
    hash = location.hash === "#" ? "" : location.hash;
    draw();
  };
  window.addEventListener("hashchange", followAddress); // the back button, or an address typed
  window.addEventListener("popstate", followAddress);

  // -- refusals and conflicts ------------------------------------------------------------------
  const choices = {
    discard(item) {
      queue.discard(item.id);
      queue.rebase(game, item.round, versionOf(item.round));
      draw();
      sendNow();
    },
    useMine(item) {
      queue.rebase(game, item.round, versionOf(item.round));
      draw();
      sendNow();
    },
    change(item) {
      fixing = item;
      opened = null;
      go("#edit-" + item.round);
    },
  };

  // -- sending and looking for other phones' changes --------------------------------------------
  const hooks = {
    url: root.getAttribute("data-actions"),
    csrf: root.getAttribute("data-csrf"),
    answered: (next) => keep(next),
    changed: () => { note = ""; draw(); },
    blocked: (reason) => { note = reason; draw(); },
  };
  // What waits is sent once the screen shows it (the caller has drawn it).
  const sendNow = afterFrame(() => queue.send(game, hooks).then((reached) => {
    if (reached === false && navigator.onLine !== false && note !== NO_ANSWER) {
      note = NO_ANSWER;
      draw();
    }
  }));
  let etag = null;
  function look() {
    if (document.hidden || navigator.onLine === false) return;
    if (items().some((a) => a.status === "pending")) return sendNow();
    const before = note;
    fetch(root.getAttribute("data-state"), { headers: etag ? { "If-None-Match": etag } : {}, credentials: "same-origin" })
      .then((response) => {
        if (response.status !== 200 || (response.headers.get("Content-Type") || "").indexOf("json") < 0) return null;
        etag = response.headers.get("ETag");
        return response.json();
      })
      .then((next) => {
        if (note === NO_ANSWER) note = "";
        const newer = next && next.revision > server.revision;
        if (newer) keep(next);
        if (newer || note !== before) draw(); // the card entry keeps what is typed: only the other screens change
      })
      .catch(() => { /* no answer: the next look tries again */ });
  }
  setInterval(look, LOOK_EVERY_MS);
  // Back at the table after the phone was locked or another app was open: the news at once.
  document.addEventListener("visibilitychange", () => { if (!document.hidden) look(); });
  window.addEventListener("online", () => { draw(); sendNow(); });
  window.addEventListener("offline", draw);
  // Another tab of this phone sent or kept something: the same game, drawn again.
  window.addEventListener("storage", (event) => {
    if (!event.key || event.key.indexOf("scorekeeper-") !== 0) return;
    if (event.key === stored) server = newest(server, read(stored, null));
    draw();
  });

  keep(server);
  root.classList.add("is-live");
  draw();
  sendNow();
}
