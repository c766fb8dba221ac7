// Scorekeeper's service worker: the app shell from the phone, pages from the network when it
// answers and from the phone's last copy when it does not. Forms are never cached: the game's
// script keeps what is entered offline and sends it when the connection returns.
"use strict";

var CACHE = "scorekeeper-" + {{ version|tojson }};
var SHELL = {{ shell|tojson }};
var OFFLINE = {{ url_for('pwa.offline')|tojson }};

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) {
      // Past the browser's own cache: the script's modules keep their names from one version to the next.
      return cache.addAll(SHELL.map(function (url) { return new Request(url, { cache: "reload" }); }));
    }).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("scorekeeper-") === 0 && name !== CACHE;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function fromNetworkKeepingACopy(request) {
  return fetch(request).then(function (response) {
    // Only whole pages of this site: not a redirect to sign in, not an error page.
    if (response.ok && response.type === "basic" && !response.redirected) {
      var copy = response.clone();
      caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
    }
    return response;
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;

  if (url.pathname.indexOf("/static/") === 0) {
    // Fingerprinted files never change under the same address.
    event.respondWith(caches.match(request).then(function (hit) {
      return hit || fromNetworkKeepingACopy(request);
    }));
  } else if (request.mode === "navigate") {
    event.respondWith(fromNetworkKeepingACopy(request).catch(function () {
      return caches.match(request, { ignoreVary: true }).then(function (hit) {
        return hit || caches.match(OFFLINE);
      });
    }));
  }
  // Everything else (the scoreboard's polling, downloads) goes to the network as usual.
});
