// Starts the insight worker (outbox-insight, built by trunk): requests that arrive while the
// wasm is still loading wait here, then go to the handler Rust installs in main(). The page's
// build id (?v=…) goes on to the worker's files, so no cache pairs a new page with an old one.
var waiting = [];
self.onmessage = function (e) { waiting.push(e); };
var build = self.location.search;
importScripts("./outbox-insight.js" + build);
wasm_bindgen({ module_or_path: "./outbox-insight_bg.wasm" + build }).then(function () {
  waiting.forEach(function (e) { self.onmessage(e); });
  waiting = [];
});
