// The screen stays on during a game (Screen Wake Lock), unless the family turned it off here.

const WAKE = "scorekeeper-wake-lock"; // "off" when the user turned keeping the screen on off
let lock = null;

function wanted() { return localStorage.getItem(WAKE) !== "off" && document.querySelector("[data-wake-lock]"); }

function hold() {
  if (!("wakeLock" in navigator) || lock || !wanted() || document.hidden) return;
  navigator.wakeLock.request("screen").then((held) => {
    lock = held;
    held.addEventListener("release", () => { lock = null; draw(); });
    draw();
  }).catch(() => { /* refused (battery saver): the toggle still shows what was asked */ });
}

function draw() {
  const button = document.querySelector("[data-wake-lock]");
  if (!button) return;
  const on = localStorage.getItem(WAKE) !== "off";
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.textContent = on ? (lock ? "Screen stays on ✓" : "Screen stays on") : "Keep screen on";
}

export function setupWakeLock(button) {
  if (!("wakeLock" in navigator)) return; // stays hidden where the browser cannot do it
  button.hidden = false;
  button.addEventListener("click", () => {
    const on = localStorage.getItem(WAKE) === "off";
    localStorage.setItem(WAKE, on ? "on" : "off");
    if (on) hold();
    else if (lock) lock.release();
    draw();
  });
  draw();
  hold();
  document.addEventListener("visibilitychange", hold);
}
