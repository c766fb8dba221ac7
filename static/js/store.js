// The phone's own storage: JSON in localStorage, written before anything is drawn from it.
// Private browsing or a full disk only makes the phone forget; the page keeps working.

export function read(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key));
    return value === null ? fallback : value;
  } catch (e) {
    return fallback;
  }
}

export function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch (e) {
    return false;
  }
}

export function forget(key) {
  try { localStorage.removeItem(key); } catch (e) { /* nothing kept, nothing to forget */ }
}

// crypto.randomUUID needs HTTPS; getRandomValues works on a home network over plain HTTP too.
export function newId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => (b + 256).toString(16).slice(1)).join("");
}

// ``fn`` to run once after the next frame is drawn, however often it is asked for meanwhile:
// work that need not delay what a tap shows (keeping a draft, sending).
export function afterFrame(fn) {
  let asked = false;
  return () => {
    if (asked) return;
    asked = true;
    requestAnimationFrame(() => setTimeout(() => { asked = false; fn(); }, 0));
  };
}
