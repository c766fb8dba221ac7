// The one script that runs before the page is first drawn: a classic script in the head (the modules
// of main.js run after the first paint). It marks the page as one the script will set up, so app.css
// draws from the start what the modules then only fill in: the card entry's keypad and its one hand
// at a time, a recap's share button, the paper grid's totals, and on plain HTTP (not a secure
// context) the hint of what needs HTTPS, once per phone. Nothing moves when the modules run.
(function () {
  var root = document.documentElement;
  root.classList.add("js");
  try {
    if (!window.isSecureContext && localStorage.getItem("scorekeeper-https-hint-shown") !== "1") {
      root.classList.add("show-https-hint");
    }
  } catch (error) {
    root.classList.add("show-https-hint"); // storage refused: show it, it is short
  }
  // main.js never ran (the connection dropped while the page loaded): the page as it works without it.
  window.addEventListener("load", function () {
    if (!root.hasAttribute("data-script")) root.classList.remove("js", "show-https-hint");
  });
})();
