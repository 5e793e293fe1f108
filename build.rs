//! A build id for the insight worker: a fingerprint (FNV-1a 64) of the sources, compiled into
//! the page as `INSIGHT_BUILD`. The page starts `insight-worker.js?v=<id>` and the loader
//! passes the id on to the worker's files, whose names carry no hash: after a redeploy a
//! browser never pairs a new page with a cached old worker. The page fetches its English
//! narration (`narration.en.txt`, made from these sources) with the same id.

use std::path::Path;

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    let mut files = Vec::new();
    walk(Path::new("src"), &mut files);
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in files {
        for byte in file.to_string_lossy().bytes().chain(std::fs::read(&file).unwrap_or_default()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=INSIGHT_BUILD={hash:016x}");
}
