//! The whole UCI line handler: the input, split into lines, is run as a session. Searches are
//! bounded (every `go` gets `depth 3` appended, `infinite` and `ponder` are dropped), and
//! commands that would touch files or take seconds are left out; everything else goes in as is.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn bounded(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let costly = ["bench", "perft", "debug log file", "bookfile", "syzygypath", "hash", "threads"];
    if costly.iter().any(|c| lower.contains(c)) {
        return None;
    }
    if lower.trim_start().starts_with("go") {
        let kept: Vec<&str> = line
            .split_ascii_whitespace()
            .filter(|w| !w.eq_ignore_ascii_case("infinite") && !w.eq_ignore_ascii_case("ponder"))
            .collect();
        return Some(format!("{} depth 3", kept.join(" ")));
    }
    Some(line.to_string())
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines: Vec<String> = text.split('\n').take(64).filter_map(bounded).collect();
    brudno::uci::Uci::new().run_lines(&lines);
});
