// Compiles one WebAssembly module off the page's main thread and posts it back: a compiled
// module is shared with the page, not copied, so the page only instantiates it. Started by
// the page's `redislabCompile(url)` (crates/deck/src/shell.rs), one worker per module, ended
// by the page once it has answered. A file of its own rather than a blob: creating a blob URL
// is a synchronous round trip to the browser process, which held the page's first script for
// up to 50 ms while the browser was busy starting the page.
onmessage = function (e) {
  var url = e.data;
  WebAssembly.compileStreaming(fetch(url))
    .catch(function () {
      // A host that does not send `application/wasm`: compile the bytes whole.
      return fetch(url).then(function (r) { return r.arrayBuffer(); }).then(function (b) { return WebAssembly.compile(b); });
    })
    .then(function (m) { postMessage(m); }, function (x) { postMessage(String(x)); });
};
