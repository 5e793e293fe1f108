//! `assets/scenarios/<id>.<lang>.txt` is made from each built-in scenario's title
//! (`sim::scenario::titles`) and guide (`src/guides.rs`) in one language (`zh`, `en`): two
//! lines, the title and the guide; `<id>.tech.<lang>.txt` the same with the technical guide.
//! The page fetches the one it shows, so none is in its first load. Run
//! `UPDATE_GUIDES=1 cargo test --test guides_asset` after editing one.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::guides::{guide, technical_guide};
use outbox_lab::sim::scenario;
use std::collections::BTreeMap;

const DIR: &str = "assets/scenarios";

/// Every file the directory must hold: name -> text (a scenario without a guide has empty
/// guide lines).
fn wanted() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for id in scenario::IDS {
        let (en, zh) = scenario::titles(id).unwrap_or_else(|| panic!("{id} has no title"));
        for (vocab, guide) in [("", guide as fn(&str, bool) -> &'static str), (".tech", technical_guide)] {
            for (lang, title, in_zh) in [("zh", zh, true), ("en", en, false)] {
                files.insert(format!("{id}{vocab}.{lang}.txt"), format!("{title}\n{}\n", guide(id, in_zh)));
            }
        }
    }
    files
}

fn present() -> BTreeMap<String, String> {
    let Ok(dir) = std::fs::read_dir(DIR) else { return BTreeMap::new() };
    dir.filter_map(Result::ok)
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).unwrap_or_default()))
        .collect()
}

#[test]
fn the_guide_files_match_src_guides_rs() {
    let want = wanted();
    if std::env::var_os("UPDATE_GUIDES").is_some() {
        std::fs::create_dir_all(DIR).unwrap();
        for name in present().keys().filter(|n| !want.contains_key(*n)) {
            std::fs::remove_file(format!("{DIR}/{name}")).unwrap();
        }
        for (name, text) in &want {
            std::fs::write(format!("{DIR}/{name}"), text).unwrap();
        }
    }
    assert!(present() == want, "{DIR} is stale: run UPDATE_GUIDES=1 cargo test --test guides_asset and commit it");
}

#[test]
fn every_scenario_has_a_guide_of_one_line_in_each_language() {
    for id in scenario::IDS {
        let (zh, en) = (guide(id, true), guide(id, false));
        assert_eq!(zh.is_empty(), en.is_empty(), "{id}: a guide in one language only");
        assert!(!zh.contains('\n') && !en.contains('\n'), "{id}: a guide must be one line");
        let (title_en, title_zh) = scenario::titles(id).unwrap_or_default();
        assert!(!title_en.is_empty() && !title_zh.is_empty(), "{id}: a title in both languages");
        assert!(!title_en.contains('\n') && !title_zh.contains('\n'), "{id}: a title must be one line");
        // Every built-in scenario has one (since stop 68): a learner opening any of them is
        // told what to watch for.
        assert!(zh.starts_with("看点：") && en.starts_with("Watch: "), "{id}: no guide");
    }
    assert_eq!(guide("no-such-scenario", false), "");
}

#[test]
fn every_guide_has_a_technical_one_without_the_restaurants_words() {
    const RESTAURANT: [&str; 18] = [
        "ticket",
        "window",
        "kitchen",
        "spike",
        "rack",
        "cashier",
        "runner",
        "clerk",
        "carbon",
        "小票",
        "票夹",
        "窗口",
        "后厨",
        "订单钉",
        "收银员",
        "跑堂",
        "抄单员",
        "复写簿",
    ];
    for id in scenario::IDS {
        for zh in [true, false] {
            let (metaphor, technical) = (guide(id, zh), technical_guide(id, zh));
            assert_eq!(metaphor.is_empty(), technical.is_empty(), "{id}: a technical guide beside each guide");
            assert!(!technical.contains('\n'), "{id}: one line");
            assert!(technical.is_empty() || technical.starts_with(if zh { "看点：" } else { "Watch: " }), "{id}");
            // The consistency window is the pattern's own term, not the kitchen's window.
            let lower = technical.to_lowercase().replace("consistency window", "").replace("一致性窗口", "");
            let word = RESTAURANT.iter().find(|w| lower.contains(*w));
            assert!(word.is_none(), "{id}: the technical guide says {word:?}: {technical}");
        }
    }
}
