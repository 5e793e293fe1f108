//! The browser app's entry point (built by trunk for wasm32). Natively it only says where to look.

#[cfg(target_arch = "wasm32")]
fn main() {
    outbox_lab::ui::mount();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("outbox-lab is the browser app: serve it with ./scripts/serve.sh. For the native CLI, run outbox-sim.");
}
