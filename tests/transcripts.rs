#![cfg(not(target_arch = "wasm32"))]
//! The transcript suite, natively: each transcript of tests/transcripts/*.json played around the
//! core's machines (transcripts/native.rs) must give exactly the log and the records it lists — the
//! same the JavaScript executor gives in Node (tests/js/transcripts.test.mjs) and the Rust executor
//! under wasm-pack (tests/transcripts_web.rs). `RETRYLINE_BLESS=1 cargo test --test transcripts`
//! writes what the core gives now into the files instead: read the diff before committing it.

#[path = "transcripts/native.rs"]
mod native;
#[path = "transcripts/native_stream.rs"]
mod native_stream;

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

fn files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/transcripts")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_transcript_plays_as_written() {
    let bless = std::env::var("RETRYLINE_BLESS").is_ok();
    let mut failures = Vec::new();
    for path in files() {
        let text = fs::read_to_string(&path).expect("a transcript file");
        let mut transcripts: Vec<Value> = serde_json::from_str(&text).expect("a JSON array of transcripts");
        for t in &mut transcripts {
            let name = t["name"].as_str().unwrap_or("?").to_owned();
            let played = match t.get("stream") {
                Some(_) => native_stream::play_stream(t),
                None => native::play_call(t),
            };
            let got = serde_json::json!({ "log": played.log, "records": played.records });
            if bless {
                t["expect"] = got;
            } else if t.get("expect") != Some(&got) {
                failures.push(format!(
                    "{}: {name}\n  expected {}\n  got      {}",
                    path.display(),
                    serde_json::to_string(&t.get("expect")).unwrap_or_default(),
                    serde_json::to_string(&got).unwrap_or_default()
                ));
            }
        }
        if bless {
            fs::write(&path, serde_json::to_string_pretty(&transcripts).expect("JSON") + "\n").expect("write");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
