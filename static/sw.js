// Redis Lab's service worker: the app offline after the first visit, one release at a time.
// The build writes `RELEASE`, `FILES` (every file of the release → its SHA-256) and `CORE` above
// this line (crates/deck/src/release.rs); the page registers it and talks to it
// (static/offline.js, loaded by src/offline.rs). Plain JavaScript with no imports: it is the one file a browser fetches
// before it knows anything else.
//
// - It answers only for the release's own files (and a navigation to the app's folder, which
//   is `index.html`); anything else (the proxy's WebSocket, class mode's requests, other paths
//   of the host) goes to the network untouched.
// - A file is served from this release's cache (`redislab-<release>`); one not yet kept is
//   fetched, its SHA-256 checked against `FILES`, kept and served. A file whose bytes are
//   another release's (the host has a newer build) is refused and the browser asked to look
//   for the new worker, so a page never mixes two releases' files.
// - Installing keeps `CORE` (the page, the app, its styles). The page then says what it has
//   already opened (`keep`) and, when it is idle and the browser does not ask to save data,
//   asks for the rest (`fill`): fetched one at a time at low priority, so it never competes
//   with what the student does.
// - A new release waits until the page's "নতুন সংস্করণ — রিলোড" asks it to take over
//   (`activate`); taking over deletes the older releases' caches.
// - A development build's worker (`RELEASE` null) deletes every cache, unregisters itself and
//   reloads the pages it had: `trunk serve` is never answered from a cache.
'use strict';

const PREFIX = 'redislab-';
const CACHE = PREFIX + RELEASE;
const SCOPE = self.registration.scope;

if (RELEASE === null) {
  self.addEventListener('install', () => self.skipWaiting());
  self.addEventListener('activate', (e) => e.waitUntil((async () => {
    for (const k of await caches.keys()) if (k.startsWith(PREFIX)) await caches.delete(k);
    await self.registration.unregister();
    for (const c of await self.clients.matchAll({ type: 'window' })) c.navigate(c.url);
  })()));
} else {
  self.addEventListener('install', (e) => e.waitUntil(caches.open(CACHE).then((cache) =>
    Promise.all(CORE.map((path) => keep(cache, path, 'auto'))))));
  self.addEventListener('activate', (e) => e.waitUntil((async () => {
    for (const k of await caches.keys()) if (k.startsWith(PREFIX) && k !== CACHE) await caches.delete(k);
  })()));
  self.addEventListener('fetch', (e) => {
    const path = ours(e.request);
    if (path !== null) e.respondWith(answer(path));
  });
  self.addEventListener('message', (e) => e.waitUntil(told(e)));
}

const TYPES = {
  html: 'text/html; charset=utf-8', js: 'text/javascript', wasm: 'application/wasm',
  css: 'text/css', json: 'application/json', svg: 'image/svg+xml', png: 'image/png',
  woff2: 'font/woff2', webmanifest: 'application/manifest+json', txt: 'text/plain; charset=utf-8',
};

/** The release's path a request asks for, or null when it is not ours to answer. */
function ours(req) {
  if (req.method !== 'GET') return null;
  const url = new URL(req.url);
  if (!url.href.startsWith(SCOPE)) return null;
  let path = decodeURIComponent(url.pathname.slice(new URL(SCOPE).pathname.length));
  if (req.mode === 'navigate' && path === '') path = 'index.html';
  return Object.prototype.hasOwnProperty.call(FILES, path) ? path : null;
}

/** Hex SHA-256 of an ArrayBuffer. */
async function sha256(buf) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', buf));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Thrown when the network has another release's bytes for one of ours. */
class Stale extends Error {}

/** `path` from the network, checked to be this release's (the HTTP cache first, then the host). */
async function fetchChecked(path, priority) {
  for (const cache of ['default', 'no-cache']) {
    const res = await fetch(new URL(path, SCOPE), { cache, priority, credentials: 'same-origin' });
    if (!res.ok) throw new Error(path + ': HTTP ' + res.status);
    const body = await res.arrayBuffer();
    if (await sha256(body) === FILES[path]) {
      const type = TYPES[path.split('.').pop()] || 'application/octet-stream';
      return new Response(body, { headers: { 'Content-Type': type } });
    }
  }
  throw new Stale(path + ' on the host is another release\'s');
}

const inFlight = new Map();

/** `path` kept in `cache` (fetched once however many ask at the same time); its response. */
async function keep(cache, path, priority) {
  const hit = await cache.match(new URL(path, SCOPE));
  if (hit) return hit;
  let p = inFlight.get(path);
  if (!p) {
    p = fetchChecked(path, priority).then(async (res) => {
      await cache.put(new URL(path, SCOPE), res.clone());
      return res;
    }).finally(() => inFlight.delete(path));
    inFlight.set(path, p);
  }
  return (await p).clone();
}

/** A request for one of our files: from the cache, else fetched and kept; offline, a network error. */
async function answer(path) {
  try {
    return await keep(await caches.open(CACHE), path, 'auto');
  } catch (x) {
    if (x instanceof Stale) newer();
    return Response.error();
  }
}

/** The host has a newer release: have the browser fetch its worker (the page then offers it). */
function newer() {
  self.registration.update().catch(() => {});
}

let filling = null;

/** Every file of the release not kept yet, one at a time, at low priority; how many were fetched. */
function fill() {
  if (!filling) {
    filling = (async () => {
      const cache = await caches.open(CACHE);
      let fetched = 0;
      for (const path of Object.keys(FILES)) {
        if (await cache.match(new URL(path, SCOPE))) continue;
        await keep(cache, path, 'low');
        fetched += 1;
      }
      return fetched;
    })().finally(() => { filling = null; });
  }
  return filling;
}

/** What a page says: `hello` (its release, what it opened, whether to fill), `activate`. */
async function told(e) {
  const m = e.data || {};
  const reply = (msg) => e.source && e.source.postMessage(Object.assign({ release: RELEASE }, msg));
  if (m.type === 'activate') {
    await self.skipWaiting();
    return;
  }
  if (m.type !== 'hello') return;
  if (m.release !== RELEASE) {
    // The page is another release than this worker: it keeps nothing for it, and looks for
    // the newest worker (the page offers the reload once that one is waiting).
    reply({ type: 'other' });
    newer();
    return;
  }
  await self.clients.claim();
  const cache = await caches.open(CACHE);
  try {
    for (const path of m.opened || []) {
      if (Object.prototype.hasOwnProperty.call(FILES, path)) await keep(cache, path, 'low');
    }
    const fetched = m.fill ? await fill() : 0;
    const kept = (await cache.keys()).length;
    reply({ type: 'kept', fetched, kept, total: Object.keys(FILES).length });
  } catch (x) {
    if (x instanceof Stale) newer();
    reply({ type: 'failed', why: String(x && x.message || x) });
  }
}
