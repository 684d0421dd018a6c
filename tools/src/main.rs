//! `brudno-tools`: the offline tools that are not part of the engine binary.
//!
//! Each subcommand is one row of `COMMANDS`: a name, a one-line summary for the usage text
//! and a function taking the arguments after the name. Adding a tool is adding a row.

use anyhow::Result;

type Command = fn(&[String]) -> Result<()>;

const COMMANDS: &[(&str, &str, Command)] = &[
    (
        "train",
        "train the NNUE evaluation network on datagen games (train --help)",
        brudno_tools::train::command,
    ),
    (
        "eval-loss",
        "the training loss of the hand-crafted evaluation and of networks on datagen data",
        brudno_tools::eval_loss::command,
    ),
    (
        "tune",
        "Texel-tune the hand-crafted evaluation's weights (tune --help)",
        brudno_tools::tune::run,
    ),
    (
        "book",
        "make a Polyglot opening book from PGN games, or probe one (book --help)",
        brudno_tools::book::run,
    ),
    (
        "pgn-to-data",
        "convert fastchess/cutechess PGNs with scores into training data (pgn-to-data --help)",
        brudno_tools::pgn_to_data::run,
    ),
    (
        "quantise",
        "write a training checkpoint as an engine network file (quantise --help)",
        brudno_tools::train::quantise_command,
    ),
];

fn usage() -> String {
    let mut text = String::from("usage: brudno-tools <command> [options]\n\ncommands:\n");
    for (name, summary, _) in COMMANDS {
        text.push_str(&format!("  {name:<12} {summary}\n"));
    }
    text
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprint!("{}", usage());
        std::process::exit(2);
    };
    if matches!(name.as_str(), "-h" | "--help" | "help") {
        print!("{}", usage());
        return;
    }
    let Some((_, _, run)) = COMMANDS.iter().find(|(n, _, _)| n == name) else {
        eprint!("brudno-tools: unknown command {name}\n\n{}", usage());
        std::process::exit(2);
    };
    if let Err(e) = run(&args[1..]) {
        eprintln!("brudno-tools {name}: {e:#}");
        std::process::exit(1);
    }
}
