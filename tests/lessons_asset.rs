//! `assets/lessons.html`, the lessons panel's text, is made from `src/lessons.rs` (the one
//! source of truth) and shipped beside the page, fetched only when the panel opens. This test
//! fails when the file is stale; `UPDATE_LESSONS=1 cargo test --test lessons_asset` rewrites it.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::lessons::{
    Bilingual, ShowMe, Walkthrough, AI_SCENARIO, INTERVIEW_QUESTIONS, MISCONCEPTIONS, WALKTHROUGH,
};
use outbox_lab::sim::scenario;

/// Relative: `cargo test` runs a test in its package's folder. A path built in at compile time
/// (`env!("CARGO_MANIFEST_DIR")`) names the checkout the binary was built in, and two
/// checkouts sharing one target directory (CI's fresh clone and this one) can run each
/// other's binary.
const PATH: &str = "assets/lessons.html";

use outbox_lab::markup::Html;
use outbox_lab::{html, html_write};

/// The link a "show me" button loads: `?scenario=…&cfg=key:value,…` (as the share link).
fn go(show: &ShowMe) -> String {
    let mut q = format!("?scenario={}", show.scenario);
    if !show.sets.is_empty() {
        let cfg: Vec<String> = show.sets.iter().map(|s| s.replacen('=', ":", 1)).collect();
        q.push_str("&cfg=");
        q.push_str(&cfg.join(","));
    }
    q
}

/// A "show me" button, named by its scenario's name in the half's language.
fn button(show: &ShowMe, testid: &str, label: &str, zh: bool) -> Html {
    let name = scenario::name(show.scenario, zh).unwrap_or(show.scenario);
    html!("<button class=\"go\" data-go=\"{}\" data-testid=\"{}\">{} {}</button>", go(show), testid, label, name)
}

fn half(zh: bool) -> Html {
    let t = |b: &Bilingual| b.get(zh);
    let l = |z: &'static str, e: &'static str| if zh { z } else { e };
    let mut h = html!("<h3>{}</h3>\n<ol class=\"myths\">\n", l("常见误区", "Misconceptions"));
    for m in MISCONCEPTIONS {
        html_write!(
            h,
            "<li data-testid=\"myth-{}\"><p class=\"claim\">{}</p><p>{}</p>{}</li>\n",
            m.id,
            t(&m.claim),
            t(&m.truth),
            button(&m.show_me, &format!("show-{}", m.id), l("演示给我看 ▶", "Show me ▶"), zh)
        );
    }
    html_write!(
        h,
        "</ol>\n<h3>{}</h3>\n<ol class=\"questions\">\n",
        l("面试题（点开看答案）", "Interview questions (open one for its answer)")
    );
    for q in INTERVIEW_QUESTIONS {
        let insight = q.insight.map_or(Html::new(), |v| {
            html!(
                " <button class=\"go\" data-p=\"insight\" data-v=\"{}\" data-testid=\"insight-{}\">{}</button>",
                v,
                q.id,
                l("在洞察面板里看 ▶", "See it in numbers ▶")
            )
        });
        html_write!(
            h,
            "<li><details data-testid=\"q-{0}\"><summary>{1}</summary><p data-testid=\"a-{0}\">{2}</p>{3}{4}</details></li>\n",
            q.id,
            t(&q.question),
            t(&q.answer),
            button(&q.show_me, &format!("go-{}", q.id), l("在实验里看 ▶", "See it in the lab ▶"), zh),
            insight
        );
    }
    let a = &AI_SCENARIO;
    html_write!(
        h,
        "</ol>\n<h3>{}</h3>\n<div class=\"ai\" data-testid=\"ai\"><h4>{}</h4><p>{}</p><p class=\"mapping\">{}</p><p>{} {}</p></div>\n",
        l("AI 应用场景", "An AI scenario"),
        t(&a.title),
        t(&a.story),
        t(&a.mapping),
        button(&a.show_me, "ai-with", l("有去重 ▶", "With dedup ▶"), zh),
        button(&a.without_dedup, "ai-without", l("无去重 ▶", "Without dedup ▶"), zh),
    );
    h.push(&walkthrough(zh));
    h
}

/// The walkthrough's check, run: its stage link (in the half's language), after checking that
/// the shortest path is the violation the text names, with one text per step.
fn walkthrough_link(w: &Walkthrough, zh: bool) -> String {
    use outbox_lab::check::{self, Outcome};
    use outbox_lab::sim::faults::FaultKind;
    let faults = FaultKind::parse_set(w.faults).unwrap();
    let mut config = check::check_config(faults);
    config.set("relays", w.relays).unwrap();
    config.set("lock", w.lock).unwrap();
    let spec = check::Spec {
        scenario: check::small_scenario(w.orders, 1_000),
        config,
        window_ms: 0,
        faults,
        max_states: 100_000,
    };
    let Outcome::Violation { kind, path, .. } = check::check(&spec).unwrap().outcome else { panic!("no violation") };
    assert_eq!(
        (kind.as_str(), path.len()),
        (w.violation, w.steps.len()),
        "the walkthrough's text no longer fits its path"
    );
    let query = check::share_query(&spec, &path).unwrap();
    if zh {
        query.replace("lang=en", "lang=zh").replace("view=tech", "view=metaphor")
    } else {
        query
    }
}

fn walkthrough(zh: bool) -> Html {
    let w = &WALKTHROUGH;
    let t = |b: &Bilingual| b.get(zh);
    let l = |z: &'static str, e: &'static str| if zh { z } else { e };
    let steps: Html = w.steps.iter().map(|s| html!("<li>{}</li>", t(s))).collect();
    html!(
        "<h3>{}</h3>\n<div class=\"walkthrough\" data-testid=\"walkthrough\"><h4>{}</h4><p>{}</p><ol>{}</ol><p>{}</p><p><button class=\"go\" data-go=\"{}\" data-testid=\"walkthrough-replay\">{}</button> <button class=\"go\" data-p=\"insight\" data-v=\"check\" data-testid=\"walkthrough-check\">{}</button></p></div>\n",
        l("每一种顺序", "Every ordering"),
        t(&w.title),
        t(&w.intro),
        steps,
        t(&w.outro),
        walkthrough_link(w, zh),
        l("在舞台上一步步重放 ▶", "Replay it step by step on the stage ▶"),
        l("检查屏幕上的配置 ▶", "Check the configuration on screen ▶")
    )
}

/// The whole file: the Chinese half, `<!--en-->`, the English half.
fn asset() -> String {
    let file = html!(
        "<!-- made from src/lessons.rs by tests/lessons_asset.rs; do not edit -->\n{}<!--en-->\n{}",
        half(true),
        half(false)
    );
    file.into_string()
}

#[test]
fn the_lessons_asset_matches_src_lessons_rs() {
    let want = asset();
    if std::env::var_os("UPDATE_LESSONS").is_some() {
        std::fs::write(PATH, &want).unwrap();
    }
    let have = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        have == want,
        "assets/lessons.html is stale: run UPDATE_LESSONS=1 cargo test --test lessons_asset and commit it"
    );
}

#[test]
fn every_show_me_link_parses_as_a_known_scenario_with_valid_settings() {
    let links = MISCONCEPTIONS
        .iter()
        .map(|m| m.show_me)
        .chain(INTERVIEW_QUESTIONS.iter().map(|q| q.show_me))
        .chain([AI_SCENARIO.show_me, AI_SCENARIO.without_dedup]);
    for show in links {
        let q = go(&show);
        assert!(scenario::IDS.contains(&show.scenario), "{q}");
        let mut config = outbox_lab::sim::Config::default();
        for pair in q.split("&cfg=").nth(1).unwrap_or("").split(',').filter(|s| !s.is_empty()) {
            let (k, v) = pair.split_once(':').unwrap();
            config.set(k, v).unwrap_or_else(|e| panic!("{q}: {e}"));
        }
    }
    let text = asset();
    assert_eq!(text.matches("<!--en-->").count(), 1, "one split between the languages");
    assert_eq!(text.matches("data-go=").count(), 2 * (MISCONCEPTIONS.len() + INTERVIEW_QUESTIONS.len() + 2 + 1));
}
