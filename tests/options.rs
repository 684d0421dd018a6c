//! The option table in protocol.md and the engine's option registry are one list: same
//! names in the same order, same types, defaults and ranges. And `uci` prints the registry.

mod uci_harness;

use brudno::engine::options::{Kind, Value, OPTIONS};
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
fn uci_prints_one_line_per_registry_entry_and_help_names_them_all() {
    let mut gui = Gui::start();
    gui.send("uci");
    let lines = gui.until("uciok");
    let options: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("option name "))
        .collect();
    assert_eq!(options.len(), OPTIONS.len());
    for (line, spec) in options.iter().zip(OPTIONS) {
        assert!(
            line.starts_with(&format!("option name {} type ", spec.name)),
            "{line}"
        );
    }
    gui.send("help");
    let help = gui.sync();
    for spec in OPTIONS {
        assert!(
            help.iter()
                .any(|l| l.trim_start().starts_with(spec.name) && l.contains(spec.help)),
            "help lacks {}",
            spec.name
        );
    }
}
