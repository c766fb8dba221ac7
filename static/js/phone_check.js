// Set up this phone: does this browser have what the table needs? A secure connection, the service
// worker (the copy for when the Wi-Fi drops), the screen wake lock and Web Share. Opens the steps
// for this kind of phone.

async function offlineCopy() {
  const worker = document.documentElement.getAttribute("data-service-worker");
  if (!window.isSecureContext || !("serviceWorker" in navigator) || !worker) return false;
  try {
    await navigator.serviceWorker.register(worker);  // refused where the certificate is not trusted
    return true;
  } catch (error) {
    return false;
  }
}

async function check(box) {
  const found = {
    secure: window.isSecureContext,
    offline: await offlineCopy(),
    wake: "wakeLock" in navigator,
    share: typeof navigator.share === "function",
  };
  for (const [feature, works] of Object.entries(found)) {
    const item = box.querySelector(`[data-feature="${feature}"]`);
    item.dataset.state = works ? "ok" : "missing";
    item.append(works ? ": yes" : ": no");
  }
  const verdict = !found.secure ? "plain" : found.offline ? "ready" : "untrusted";
  box.querySelector('[data-check="waiting"]').hidden = true;
  box.querySelector(`[data-check="${verdict}"]`).hidden = false;
  // Before the steps, a list of what is missing says nothing new.
  box.querySelector("[data-check-list]").hidden = verdict === "plain" && box.hasAttribute("data-steps");
  const done = box.querySelector("[data-check-done]");
  if (done && verdict === "ready") done.hidden = false;
  box.dataset.verdict = verdict;  // for the tests
}

function openStepsForThisPhone() {
  const agent = navigator.userAgent;
  const platform = /iPhone|iPad|iPod/.test(agent) ? "iphone" : /Android/.test(agent) ? "android" : null;
  const steps = platform && document.querySelector(`details[data-platform="${platform}"]`);
  if (steps && document.querySelector("[data-steps]")) steps.open = true;
}

const box = document.querySelector("[data-phone-check]");
if (box) {
  openStepsForThisPhone();
  check(box);
}
