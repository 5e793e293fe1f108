//! The insight worker (built by trunk as a Web Worker, `outbox-insight_loader.js`): each
//! message is a request string for [`outbox_lab::insight::answer`], each reply its markup.
//! The page starts it the first time a learner opens the insight panel, so the first load
//! carries none of this code, and long replays never freeze the page.

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    let scope: web_sys::DedicatedWorkerGlobalScope = web_sys::js_sys::global().unchecked_into();
    let reply = scope.clone();
    // The last answer, by what it depends on (a view that ignores the cursor is not
    // recomputed while the lab plays).
    let mut last: (String, String) = (String::new(), String::new());
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let request = e.data().as_string().unwrap_or_default();
        let key = outbox_lab::insight::cache_key(&request);
        if key != last.0 {
            last = (key, outbox_lab::insight::answer(&request));
        }
        let _ = reply.post_message(&JsValue::from_str(&last.1));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    // Natively the same answers come from the library: print one for a request on stdin.
    let mut request = String::new();
    let _ = std::io::Read::read_to_string(&mut std::io::stdin(), &mut request);
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), outbox_lab::insight::answer(&request).as_bytes());
}
