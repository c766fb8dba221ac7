// Times in the phone's own zone: the server draws each as <time datetime="…Z" data-local> in UTC
// (scorekeeper/web/times.py), the same page for every phone of the family; here each phone shows
// it on its own clock, in its own way of writing a date.

const SHOWN = {
  moment: { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" },
  day: { day: "numeric", month: "short" },
};

export function setupLocalTimes(root) {
  root.querySelectorAll("time[data-local]").forEach((el) => {
    const when = new Date(el.getAttribute("datetime"));
    const options = SHOWN[el.getAttribute("data-local")];
    if (isNaN(when.getTime()) || !options) return; // the server's UTC text stays
    el.textContent = new Intl.DateTimeFormat(undefined, options).format(when);
    el.title = when.toUTCString();
  });
}
