//! Where markup enters the page: the stage's drawing, the state machine, the SQL panel, the
//! lessons' text and the insight worker's answers. These are the page's only inner-HTML
//! sinks (a test, `tests/markup_sinks.rs`, keeps it so), and each takes an [`Html`], whose
//! constructors escape text (`src/markup.rs`).

use crate::markup::Html;
use leptos::prelude::*;

/// An SVG group drawn from markup. Attributes go on with `attr:` (`attr:class="drawn"`).
#[component]
pub fn SvgMarkup(draw: impl Fn() -> Html + Send + Sync + 'static) -> impl IntoView {
    view! { <g inner_html=move || draw().into_string()></g> }
}

/// A block (`<div>`) of markup. Attributes go on with `attr:`; `node_ref` to focus it.
#[component]
pub fn Markup(
    draw: impl Fn() -> Html + Send + Sync + 'static,
    #[prop(optional)] node_ref: NodeRef<leptos::html::Div>,
) -> impl IntoView {
    view! { <div node_ref=node_ref inner_html=move || draw().into_string()></div> }
}

/// Replaces what `el` holds (plain DOM, for parts the worker's answers fill).
pub fn replace(el: &web_sys::Element, html: &Html) {
    el.set_inner_html(html.as_str());
}
