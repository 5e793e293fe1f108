// Starts the insight worker (outbox-insight, built by trunk): requests that arrive while the
// wasm is still loading wait here, then go to the handler Rust installs in main().
var waiting = [];
self.onmessage = function (e) { waiting.push(e); };
importScripts("./outbox-insight.js");
wasm_bindgen({ module_or_path: "./outbox-insight_bg.wasm" }).then(function () {
  waiting.forEach(function (e) { self.onmessage(e); });
  waiting = [];
});
