//! The option table in protocol.md and the engine's option registry are one list: same
//! names in the same order, same types, defaults and ranges. And `uci` prints the registry,
//! all but its hidden options, which stay settable by name.

mod uci_harness;

use brudno::engine::options::{listed, Kind, Value, OPTIONS};
use uci_harness::Gui;

/// The rows of protocol.md's options table: (name, type, default, range).
fn documented() -> Vec<[String; 4]> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol.md")).unwrap();
    let section = text
        .split("\n## Options")
        .nth(1)
        .expect("protocol.md has an Options section");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l.split('|').map(|c| c.trim().to_string()).collect();
            [
                cells[1].trim_matches('`').to_string(),
                cells[2].clone(),
                cells[3].clone(),
                cells[4].clone(),
            ]
        })
        .collect()
}

fn registry() -> Vec<[String; 4]> {
    OPTIONS
        .iter()
        .map(|spec| {
            let (kind, range) = match &spec.kind {
                Kind::Check => ("check", String::new()),
                Kind::Spin { min, max } => ("spin", format!("{min} – {max}")),
                Kind::Combo { choices } => ("combo", choices.join(" / ")),
                Kind::Button => ("button", String::new()),
                Kind::Text => ("string", String::new()),
            };
            let default = match spec.default_value() {
                Value::Text(t) if matches!(spec.kind, Kind::Combo { .. }) => t,
                Value::Bool(b) => b.to_string(),
                Value::Int(n) => n.to_string(),
                Value::Text(t) if t.is_empty() => "`<empty>`".to_string(),
                Value::Text(t) => format!("`{t}`"),
                Value::Pressed => String::new(),
            };
            [spec.name.to_string(), kind.to_string(), default, range]
        })
        .collect()
}

#[test]
fn protocol_md_documents_every_option_as_the_registry_defines_it() {
    let doc = documented();
    let reg = registry();
    for row in &reg {
        assert!(doc.contains(row), "protocol.md lacks or differs on {row:?}");
    }
    for row in &doc {
        assert!(
            reg.contains(row),
            "protocol.md documents {row:?}, which the engine lacks"
        );
    }
    assert_eq!(doc, reg, "same options, but in another order");
}

#[test]
fn uci_prints_one_line_per_listed_option_and_help_names_them_all() {
    let mut gui = Gui::start();
    gui.send("uci");
    let lines = gui.until("uciok");
    let options: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("option name "))
        .collect();
    let shown: Vec<_> = listed().collect();
    assert_eq!(options.len(), shown.len());
    for (line, spec) in options.iter().zip(shown) {
        assert!(
            line.starts_with(&format!("option name {} type ", spec.name)),
            "{line}"
        );
    }
    gui.send("help");
    let help = gui.sync();
    for spec in listed() {
        assert!(
            help.iter()
                .any(|l| l.trim_start().starts_with(spec.name) && l.contains(spec.help)),
            "help lacks {}",
            spec.name
        );
    }
}

#[test]
fn the_secondary_placebo_is_settable_but_not_listed() {
    let mut gui = Gui::start();
    gui.send("uci");
    let lines = gui.until("uciok");
    assert!(
        !lines.iter().any(|l| l.contains("SecondaryPlacebo")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name SecondarySearch ")),
        "{lines:?}"
    );
    gui.send("help");
    assert!(!gui.sync().iter().any(|l| l.contains("SecondaryPlacebo")));
    // Known by name: a value in range is taken silently, one out of range is refused as for
    // any spin, and a name that is no option is refused as unknown.
    gui.send("setoption name SecondaryPlacebo value 50");
    let taken = gui.sync();
    assert!(!taken.iter().any(|l| l.contains("error")), "{taken:?}");
    gui.send("setoption name SecondaryPlacebo value 101");
    let refused = gui.sync();
    assert!(
        refused
            .iter()
            .any(|l| l.contains("error") && l.contains("between 0 and 100")),
        "{refused:?}"
    );
    gui.send("setoption name SecondaryPlacebos value 50");
    let unknown = gui.sync();
    assert!(
        unknown.iter().any(|l| l.contains("unknown option")),
        "{unknown:?}"
    );
}
