// The page's side of the service worker (static/sw.js), loaded by the app once it has started
// (src/offline.rs). Plain JavaScript rather than the app's Rust: the same code in the app's
// wasm and its glue weighed 7.7 KB gzip of the first load, whose budget (200 KB) it would
// have broken; here it is 1.5 KB fetched after the first slide.
//
// - Once the page is idle after its first slide (the fonts in, nothing fetched for 2 s, then
//   an idle period) it registers `sw.js`, tells the worker its release, what it has opened
//   (kept for offline) and, unless the browser asks to save data, to fetch the rest.
// - A new release installed and waiting: "নতুন সংস্করণ — রিলোড"; the new worker takes over
//   only then. A page whose worker is replaced under it (the reload in another tab) reloads,
//   so no page runs on two releases' files.
// - The whole release on the device: a short note, and `data-offline="ready"` on the root.
// - The slide the student is on (`#/<deck>/<n>`) is kept: an app opened from the home
//   screen starts there (crates/deck/src/shell.rs). The player moves with the History API
//   (no event), so the address is read when it changes by a link and when the page is hidden.
// - A development build (no release in the page): unregisters whatever an earlier release
//   registered here.
(function () {
  'use strict';
  function remember() {
    if (/^#\/[a-z0-9-]+\/[0-9]+(\.[0-9]+)?$/.test(location.hash)) {
      try { localStorage.setItem('redislab.last', location.hash); } catch (x) { /* private mode */ }
    }
  }
  remember();
  addEventListener('hashchange', remember);
  document.addEventListener('visibilitychange', remember);
  if (!('serviceWorker' in navigator)) return;
  var sw = navigator.serviceWorker;
  var meta = document.querySelector('meta[name=redislab-release]');
  var release = meta && meta.content;
  if (!release) {
    sw.getRegistrations().then(function (rs) { rs.forEach(function (r) { r.unregister(); }); });
    return;
  }

  function quiet(then) {
    var seen = -1;
    (function check() {
      setTimeout(function () {
        var es = performance.getEntriesByType('resource');
        var last = es.reduce(function (m, e) { return Math.max(m, e.responseEnd); }, 0);
        if (es.length === seen && performance.now() - last >= 2000 && document.fonts.status === 'loaded') {
          (window.requestIdleCallback || setTimeout)(then);
        } else {
          seen = es.length;
          check();
        }
      }, 500);
    })();
  }

  function opened() {
    var base = location.href.split('#')[0].replace(/[^/]*$/, '');
    var out = ['index.html'];
    performance.getEntriesByType('resource').forEach(function (e) {
      if (e.name.indexOf(base) === 0) out.push(e.name.slice(base.length).split(/[?#]/)[0]);
    });
    return out;
  }

  function hello(reg) {
    if (!reg.active) return;
    var c = navigator.connection;
    reg.active.postMessage({ type: 'hello', release: release, opened: opened(), fill: !(c && c.saveData) });
  }

  function box(cls, id, html) {
    var el = document.createElement('div');
    el.className = cls;
    el.setAttribute('role', 'status');
    el.setAttribute('data-testid', id);
    el.innerHTML = html;
    document.body.appendChild(el);
    return el;
  }

  var banner = null;
  function offer(reg) {
    if (banner || !controlled || !reg.waiting) return;
    banner = box('update-banner', 'update-banner',
      '<span class="update-text">Redis Lab-এর নতুন সংস্করণ এসেছে।</span>' +
      '<button type="button" class="update-reload" data-testid="update-reload">নতুন সংস্করণ — রিলোড</button>');
    banner.querySelector('button').addEventListener('click', function () {
      // The waiting worker takes over; `controllerchange` reloads this page.
      if (reg.waiting) reg.waiting.postMessage({ type: 'activate' });
      else location.reload();
    });
  }

  var controlled = !!sw.controller;
  sw.addEventListener('controllerchange', function () {
    // The first worker taking a page over is not a change of release.
    if (controlled) location.reload();
    controlled = true;
  });
  sw.addEventListener('message', function (e) {
    var m = e.data || {};
    if (m.type !== 'kept' || m.kept < m.total) return;
    document.documentElement.setAttribute('data-offline', 'ready');
    if (m.fetched > 0) {
      var note = box('offline-note', 'offline-note', '');
      note.textContent = 'এখন নেটওয়ার্ক ছাড়াও চলবে: সব ডেক, ল্যাব আর অনুশীলন এই ডিভাইসে রাখা হলো।';
      setTimeout(function () { note.remove(); }, 8000);
    }
  });

  quiet(function () {
    sw.register('sw.js', { updateViaCache: 'none' }).then(function (reg) {
      offer(reg);
      reg.addEventListener('updatefound', function () {
        var w = reg.installing;
        if (w) w.addEventListener('statechange', function () { if (w.state === 'installed') offer(reg); });
      });
      return sw.ready;
    }).then(function (reg) {
      hello(reg);
      // Look for a new release when the student comes back; go on keeping this one when the
      // network comes back.
      document.addEventListener('visibilitychange', function () {
        if (document.visibilityState === 'visible') reg.update().catch(function () {});
      });
      addEventListener('online', function () { reg.update().catch(function () {}); hello(reg); });
    }).catch(function () {});
  });
})();
