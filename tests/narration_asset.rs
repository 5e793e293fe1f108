//! `assets/narration.en.txt` holds every English sentence of the page's narration written in
//! `en!("…")` under `src/`, one a line, in the order they are written (first time each). The
//! page's wasm keeps only each sentence's key and fetches this file when it first speaks English
//! (`src/ui/english.rs`). Run `UPDATE_NARRATION=1 cargo test --test narration_asset` after
//! editing a sentence.
#![cfg(not(target_arch = "wasm32"))]

use outbox_lab::english_key::{key, FILE, MISSING};
use std::collections::BTreeMap;

const ASSET: &str = "assets/narration.en.txt";

/// The sources' files, by path (relative: the test runs in the repository). All of `src`: an
/// `en!` anywhere would compile, and read ⋯ if the file left it out.
fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path.display().to_string(), text));
            }
        }
    }
    files.sort();
    files
}

/// The value of the Rust string literal whose text (between its quotes) starts `source`, and
/// how many bytes of `source` it took with its closing quote. Only the escapes the narration
/// uses are known; any other fails the test, naming it.
fn literal(source: &str, at: &str) -> (String, usize) {
    let mut value = String::new();
    let mut chars = source.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (value, i + 1),
            '\\' => match chars.next().map(|(_, e)| e) {
                Some('"') => value.push('"'),
                Some('\\') => value.push('\\'),
                Some('\'') => value.push('\''),
                other => panic!("{at}: the escape \\{other:?} in an en! sentence (write the character itself)"),
            },
            '\n' => panic!("{at}: an en! sentence spans lines (the file keeps one a line)"),
            c => value.push(c),
        }
    }
    panic!("{at}: an en! sentence with no closing quote")
}

/// Every `en!("…")` sentence, in the order written, each once.
fn sentences() -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut calls = 0;
    for (path, text) in sources() {
        for (offset, _) in text.match_indices("en!(") {
            // Its mentions in comments are not sentences.
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let line = &text[line_start..offset];
            if line.trim_start().starts_with("//") {
                continue;
            }
            let at = format!("{path}:{}", text[..offset].matches('\n').count() + 1);
            let rest = &text[offset + 4..];
            let Some(rest) = rest.strip_prefix('"') else { panic!("{at}: en! takes a string literal") };
            let (value, used) = literal(rest, &at);
            assert!(rest[used..].starts_with(')'), "{at}: en! takes one string literal");
            calls += 1;
            if !found.contains(&value) {
                found.push(value);
            }
        }
    }
    assert!(calls > 200, "only {calls} en! sentences found under src: is the search broken?");
    found
}

#[test]
fn the_english_narration_file_matches_the_sources() {
    let want: String = sentences().iter().map(|s| format!("{s}\n")).collect();
    if std::env::var_os("UPDATE_NARRATION").is_some() {
        std::fs::write(ASSET, &want).unwrap();
    }
    let present = std::fs::read_to_string(ASSET).unwrap_or_default();
    assert!(
        present == want,
        "{ASSET} is stale: run UPDATE_NARRATION=1 cargo test --test narration_asset and commit it"
    );
    assert!(ASSET.ends_with(FILE), "the page fetches {FILE}, the test writes {ASSET}");
    let page = std::fs::read_to_string("src/ui/english.rs").unwrap();
    assert!(page.contains(&format!("concat!(\"{FILE}?v=\"")), "the page's URL names {FILE}");
}

#[test]
fn no_two_sentences_share_a_key() {
    let mut seen: BTreeMap<u32, String> = BTreeMap::new();
    for sentence in sentences() {
        assert!(!sentence.is_empty() && sentence.trim_end() == sentence, "{sentence:?}: empty, or ends in a space");
        assert!(!sentence.contains(MISSING), "{sentence:?} holds {MISSING}, which marks a sentence not fetched");
        if let Some(other) = seen.insert(key(&sentence), sentence.clone()) {
            panic!("{sentence:?} and {other:?} have the same key: reword one");
        }
    }
}

#[test]
fn the_key_is_fnv_1a() {
    // Known values of 32-bit FNV-1a.
    assert_eq!(key(""), 0x811c_9dc5);
    assert_eq!(key("a"), 0xe40c_292c);
    assert_eq!(key("foobar"), 0xbf9c_f968);
}
