//! Markup that is safe by construction. Where the lab draws (the SVG stage, the state machine,
//! the SQL panel, the insight worker's charts) it writes markup, and all of it is an [`Html`].
//! Every way to make one escapes text:
//!
//! - [`Html::text`] / [`Html::push_text`]: text, escaped;
//! - [`Html::lit`] / [`Html::push_lit`]: markup written in the source (`&'static str`);
//! - [`html!`](crate::html) / [`html_write!`](crate::html_write): a template literal whose holes
//!   are filled by [`Hole`] values — text is escaped, numbers are shown, an `Html` goes in as it
//!   is. A hole must be `{}` (or `{:.1}`…) with its value passed as an argument: an inline
//!   capture (`{name}`) would skip the escaping, so it does not compile.
//!
//! ```
//! let name = "<script>";
//! assert_eq!(outbox_lab::html!("<b>{}</b>", name).as_str(), "<b>&lt;script&gt;</b>");
//! ```
//! ```compile_fail
//! let name = "<script>";
//! let _ = outbox_lab::html!("<b>{name}</b>"); // a named hole: does not compile
//! ```
//!
//! The page's only markup sinks take an `Html` (`src/ui/markup.rs`); a test checks that no
//! other file sets inner HTML. The worker's answer crosses a thread as a string and becomes
//! `Html` again in one named place, [`Html::from_insight_worker`]; the lessons' text, a file
//! made at build time, in another, [`Html::from_lessons_asset`].

use std::fmt;

/// Markup whose text parts were escaped on the way in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Html(String);

impl Html {
    pub const fn new() -> Html {
        Html(String::new())
    }

    /// Text, escaped for element content and quoted attribute values.
    pub fn text(text: &str) -> Html {
        let mut h = Html::new();
        h.push_text(text);
        h
    }

    /// Markup written in the source.
    pub fn lit(markup: &'static str) -> Html {
        Html(markup.to_string())
    }

    pub fn push(&mut self, markup: &Html) {
        self.0.push_str(&markup.0);
    }

    pub fn push_lit(&mut self, markup: &'static str) {
        self.0.push_str(markup);
    }

    pub fn push_text(&mut self, text: &str) {
        let _ = fmt::Write::write_fmt(&mut self.0, format_args!("{}", Escaped(text)));
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The insight worker's answer, back from the thread it was made on (where it was an
    /// `Html`, see `insight::answer`). The page's only way to turn a string into markup.
    pub fn from_insight_worker(answer_part: &str) -> Html {
        Html(answer_part.to_string())
    }

    /// The lessons' text, fetched from `lessons.html` beside the page (made from
    /// `src/lessons.rs` as `Html` by `tests/lessons_asset.rs`, which fails when it is stale).
    pub fn from_lessons_asset(half: &str) -> Html {
        Html(half.to_string())
    }

    #[doc(hidden)]
    pub fn __from_args(args: fmt::Arguments<'_>) -> Html {
        Html(fmt::format(args))
    }

    #[doc(hidden)]
    pub fn __push_args(&mut self, args: fmt::Arguments<'_>) {
        let _ = fmt::Write::write_fmt(&mut self.0, args);
    }
}

impl FromIterator<Html> for Html {
    fn from_iter<I: IntoIterator<Item = Html>>(iter: I) -> Html {
        let mut out = Html::new();
        for h in iter {
            out.push(&h);
        }
        out
    }
}

/// A value that can fill a hole of [`html!`](crate::html): shown as markup safely.
pub trait Hole {
    fn hole(&self) -> impl fmt::Display + '_;
}

impl Hole for Html {
    fn hole(&self) -> impl fmt::Display + '_ {
        self.0.as_str()
    }
}

impl Hole for str {
    fn hole(&self) -> impl fmt::Display + '_ {
        Escaped(self)
    }
}

impl Hole for String {
    fn hole(&self) -> impl fmt::Display + '_ {
        Escaped(self.as_str())
    }
}

impl Hole for std::borrow::Cow<'_, str> {
    fn hole(&self) -> impl fmt::Display + '_ {
        Escaped(self)
    }
}

impl Hole for char {
    fn hole(&self) -> impl fmt::Display + '_ {
        let mut buf = [0u8; 4];
        let s: &str = self.encode_utf8(&mut buf);
        Escaped(s).to_string()
    }
}

impl<T: Hole + ?Sized> Hole for &T {
    fn hole(&self) -> impl fmt::Display + '_ {
        (**self).hole()
    }
}

/// Numbers and yes/no show no markup characters: they go in as they are (a format spec such
/// as `{:.1}` applies).
macro_rules! shown_as_is {
    ($($t:ty),*) => {$(
        impl Hole for $t {
            fn hole(&self) -> impl fmt::Display + '_ {
                self
            }
        }
    )*};
}
shown_as_is!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool);

struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// True if every hole of a template is positional (`{}`, `{:…}`, `{0}`): a named hole would
/// capture a variable by `Display` and skip [`Hole`]'s escaping. Checked when compiling.
pub const fn holes_are_positional(template: &str) -> bool {
    let b = template.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' && i + 1 < b.len() {
            let next = b[i + 1];
            if next == b'{' {
                i += 2;
                continue;
            }
            if next.is_ascii_alphabetic() || next == b'_' || next >= 0x80 {
                return false;
            }
        }
        i += 1;
    }
    true
}

/// Markup from a template literal and its holes' values: `html!("<b>{}</b>", name)`. Text is
/// escaped, numbers shown, an [`Html`] inserted as is. Named holes (`{name}`) do not compile.
#[macro_export]
macro_rules! html {
    ($template:literal $(, $value:expr)* $(,)?) => {{
        const _: () = assert!(
            $crate::markup::holes_are_positional($template),
            "html!: a named hole would skip escaping: write an empty hole and pass the value after the template"
        );
        // Bound before it is returned: the holes' temporaries borrow the values, and must be
        // gone before the locals of a function whose last expression this is.
        let html = $crate::markup::Html::__from_args(format_args!($template $(, $crate::markup::Hole::hole(&$value))*));
        html
    }};
}

/// [`html!`](crate::html), appended to an `Html`: `html_write!(out, "<b>{}</b>", name)`.
#[macro_export]
macro_rules! html_write {
    ($out:expr, $template:literal $(, $value:expr)* $(,)?) => {{
        const _: () = assert!(
            $crate::markup::holes_are_positional($template),
            "html_write!: a named hole would skip escaping: write an empty hole and pass the value after the template"
        );
        $crate::markup::Html::__push_args(&mut $out, format_args!($template $(, $crate::markup::Hole::hole(&$value))*));
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "<img src=x onerror=alert(1)> & \"q\" 'a'";

    #[test]
    fn text_is_escaped_by_every_constructor() {
        let escaped = "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot; &#39;a&#39;";
        assert_eq!(Html::text(HOSTILE).as_str(), escaped);
        let mut h = Html::lit("<b>");
        h.push_text(HOSTILE);
        h.push_lit("</b>");
        assert_eq!(h.as_str(), format!("<b>{escaped}</b>"));
        let owned = HOSTILE.to_string();
        let cow = std::borrow::Cow::Borrowed(HOSTILE);
        let from_template = crate::html!("<p title=\"{}\">{}|{}|{}</p>", HOSTILE, owned, cow, '<');
        assert_eq!(from_template.as_str(), format!("<p title=\"{escaped}\">{escaped}|{escaped}|&lt;</p>"));
        let mut out = Html::new();
        crate::html_write!(out, "<i>{}</i>", &&owned);
        assert_eq!(out.as_str(), format!("<i>{escaped}</i>"));
    }

    #[test]
    fn markup_and_numbers_go_in_as_they_are() {
        let inner = crate::html!("<tspan>{}</tspan>", "a<b");
        let h = crate::html!("<text x=\"{}\" y=\"{:.1}\">{}{}</text>", 12u64, 3.125f64, inner, true);
        assert_eq!(h.as_str(), "<text x=\"12\" y=\"3.1\"><tspan>a&lt;b</tspan>true</text>");
        let joined: Html = ["a", "<"].iter().map(|t| Html::text(t)).collect();
        assert_eq!(joined.as_str(), "a&lt;");
        assert_eq!(crate::html!("{{literal}} {0}", 5).as_str(), "{literal} 5");
    }

    /// A template of a function's locals can be the function's last expression.
    fn last_expression(n: f64) -> Html {
        let twice = n * 2.0;
        let label = format!("<{twice}>");
        crate::html!("<b x={:.1}>{}</b>", twice, label)
    }

    #[test]
    fn a_template_can_be_a_functions_last_expression() {
        assert_eq!(last_expression(1.25).as_str(), "<b x=2.5>&lt;2.5&gt;</b>");
    }

    #[test]
    fn only_positional_holes_are_allowed() {
        for ok in ["", "{}", "{:.1}", "{0}", "{{name}}", "a{}b{:>4}", "{"] {
            assert!(holes_are_positional(ok), "{ok}");
        }
        for named in ["{name}", "{x:.1}", "a {_y}", "{名}"] {
            assert!(!holes_are_positional(named), "{named}");
        }
    }
}
