//! The export file of a run: a small JSON document written and read by hand (no JSON library
//! in the browser bundle). Its `link` is the lab's share link (`?scenario=&seed=&step=&cfg=&x=`),
//! which already carries the scenario, seed, step, settings and every intervention, and is
//! validated when it is loaded like any link. The other fields are for people reading the file.
//!
//! ```json
//! {"format":"outbox-lab-run","version":1,"scenario":"seed-demo","seed":1,"step":12,
//!  "link":"?scenario=seed-demo&seed=1&step=12&lang=zh&view=metaphor&x=9:dup"}
//! ```

pub const FORMAT: &str = "outbox-lab-run";

/// The file for a run whose share link is `link`.
pub fn write(scenario: &str, seed: u64, step: usize, link: &str) -> String {
    format!(
        "{{\"format\":\"{FORMAT}\",\"version\":1,\"scenario\":\"{}\",\"seed\":{seed},\"step\":{step},\"link\":\"{}\"}}\n",
        json_str(scenario),
        json_str(link)
    )
}

/// The share link in an export file, or why the file is not one.
pub fn read(text: &str) -> Result<String, String> {
    let field = |name: &str| {
        let key = format!("\"{name}\":");
        let at = text.find(&key)? + key.len();
        let rest = text[at..].trim_start();
        let rest = rest.strip_prefix('"')?;
        let end = rest.find('"')?;
        Some(&rest[..end])
    };
    if text.len() > 1_000_000 || field("format") != Some(FORMAT) {
        return Err("not an outbox-lab run file (no \"format\":\"outbox-lab-run\") / 不是 outbox-lab 的导出文件".into());
    }
    let version = text.find("\"version\":").map(|at| text[at + 10..].trim_start());
    if !version.is_some_and(|v| v.starts_with('1') && !v[1..].starts_with(|c: char| c.is_ascii_digit())) {
        return Err("an outbox-lab run file of another version (this lab reads version 1) / 版本不支持".into());
    }
    match field("link") {
        Some(link) if link.starts_with('?') && !link.contains('\\') => Ok(link.to_string()),
        _ => Err("the run file has no readable \"link\" / 导出文件缺少 link".into()),
    }
}

/// A JSON string's content; links and scenario ids never need more than this.
fn json_str(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `text` as a `data:` URL a download link can carry.
pub fn data_url(text: &str) -> String {
    let mut out = String::from("data:application/json;charset=utf-8,");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~:,?=&{}\"".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_file_round_trips_its_link() {
        let link = "?scenario=seed-demo&seed=7&step=12&lang=en&view=tech&cfg=batch_size:1&x=9:o:U001:1250:2,20:dup";
        let file = write("seed-demo", 7, 12, link);
        assert_eq!(read(&file), Ok(link.to_string()));
        assert!(file.starts_with("{\"format\":\"outbox-lab-run\",\"version\":1,"));
        // Whitespace a person (or a pretty-printer) adds is fine.
        let pretty = file.replace(",\"", ",\n  \"").replace("\":", "\": ");
        assert_eq!(read(&pretty), Ok(link.to_string()));
    }

    #[test]
    fn foreign_and_broken_files_are_refused_with_a_reason() {
        for (text, why) in [
            ("", "not an outbox-lab run file"),
            ("{\"format\":\"something-else\",\"version\":1,\"link\":\"?scenario=x\"}", "not an outbox-lab run file"),
            ("\u{89}PNG\r\n", "not an outbox-lab run file"),
            ("{\"format\":\"outbox-lab-run\",\"version\":2,\"link\":\"?scenario=x\"}", "another version"),
            ("{\"format\":\"outbox-lab-run\",\"version\":1}", "no readable \"link\""),
            ("{\"format\":\"outbox-lab-run\",\"version\":1,\"link\":\"http://evil\"}", "no readable \"link\""),
        ] {
            let e = read(text).unwrap_err();
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }

    #[test]
    fn the_data_url_decodes_to_the_file() {
        let file = write("seed-demo", 1, 3, "?scenario=seed-demo&seed=1&step=3&lang=zh&view=metaphor");
        let url = data_url(&file);
        let body = url.strip_prefix("data:application/json;charset=utf-8,").unwrap();
        let mut bytes = Vec::new();
        let mut it = body.bytes();
        while let Some(b) = it.next() {
            if b == b'%' {
                let h: String = [it.next().unwrap() as char, it.next().unwrap() as char].iter().collect();
                bytes.push(u8::from_str_radix(&h, 16).unwrap());
            } else {
                bytes.push(b);
            }
        }
        assert_eq!(String::from_utf8(bytes).unwrap(), file);
        assert!(!url.contains('#') && !url.contains(' ') && !url.contains('\n'));
    }
}
