//! Markup enters the page in one file, `src/ui/markup.rs`, whose sinks take an `Html` (whose
//! constructors escape text). This test keeps it so: no other source file sets inner HTML,
//! and the two constructors that turn a string back into markup (the worker's answer, the
//! lessons' file) are called only where those strings arrive (the worker answers the insight
//! panel and the SQL panel).
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (what, the only files that may say it)
const RULES: [(&str, &[&str]); 7] = [
    ("inner_html", &["src/ui/markup.rs"]),
    ("innerHTML", &[]),
    ("outer_html", &[]),
    ("insert_adjacent_html", &[]),
    ("document_write", &[]),
    ("from_insight_worker(", &["src/markup.rs", "src/ui/insight.rs", "src/ui/panels/sql.rs"]),
    ("from_lessons_asset(", &["src/markup.rs", "src/ui/lessons.rs"]),
];

#[test]
fn only_the_markup_sinks_set_inner_html() {
    // Relative (`cargo test` runs in the package's folder): see tests/lessons_asset.rs.
    let root = Path::new(".");
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    assert!(files.len() > 30, "found only {} source files", files.len());
    let mut seen = [0usize; RULES.len()];
    let mut wrong = Vec::new();
    for file in &files {
        let name = file.strip_prefix(root).unwrap_or(file).to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (i, (what, allowed)) in RULES.iter().enumerate() {
            let count = text.matches(what).count();
            seen[i] += count;
            if count > 0 && !allowed.contains(&name.as_str()) {
                wrong.push(format!("{name}: {what} ×{count}"));
            }
        }
    }
    assert!(wrong.is_empty(), "markup sinks outside src/ui/markup.rs: {wrong:?}");
    // The rules still describe the code (a renamed sink would make this test pass vacuously).
    for (i, (what, allowed)) in RULES.iter().enumerate() {
        assert_eq!(seen[i] > 0, !allowed.is_empty(), "{what} found {} times", seen[i]);
    }
}
