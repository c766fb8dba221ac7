// The live scoreboard: asks every few seconds whether the game changed (a 304 while it did not)
// and draws the new part in place, without a reload.

export function setupLiveBoard(board) {
  const source = board.getAttribute("data-live-board");
  let etag = board.getAttribute("data-etag");
  const every = parseInt(board.getAttribute("data-poll-ms"), 10) || 2000;
  const status = document.querySelector("[data-live-status]");
  const say = (text) => { if (status) status.textContent = text; };
  function poll() {
    if (document.hidden) return setTimeout(poll, every);
    fetch(source, { headers: etag ? { "If-None-Match": etag } : {}, cache: "no-store", credentials: "same-origin" })
      .then((response) => {
        if (response.status === 404) {
          say("This scoreboard link no longer works.");
          return false;
        }
        if (response.status === 304) return true;
        if (!response.ok) throw new Error(response.status);
        etag = response.headers.get("ETag");
        return response.text().then((html) => {
          board.innerHTML = html;
          say("Updated " + new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) + ".");
          return true;
        });
      })
      .catch(() => {
        say("No connection: showing the last scores seen.");
        return true;
      })
      .then((goOn) => { if (goOn) setTimeout(poll, every); });
  }
  setTimeout(poll, every);
}
