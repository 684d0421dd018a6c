//! `brudno-tools`: the offline tools that are not part of the engine binary.
//!
//! Each subcommand is one row of `COMMANDS`: a name, a one-line summary for the usage text
//! and a function taking the arguments after the name. Adding a tool is adding a row. A
//! subcommand's bad command line comes back as a `UsageError`: exit code 2, where a failure
//! of the work itself is 1.

use anyhow::Result;
use brudno_tools::cli::{print_help, UsageError};

type Command = fn(&[String]) -> Result<()>;

const COMMANDS: &[(&str, &str, Command)] = &[
    (
        "train",
        "train the NNUE evaluation network on datagen games",
        brudno_tools::train::command,
    ),
    (
        "eval-loss",
        "the training loss of the hand-crafted evaluation and of networks on datagen data",
        brudno_tools::eval_loss::command,
    ),
    (
        "tune",
        "Texel-tune the hand-crafted evaluation's weights",
        brudno_tools::tune::run,
    ),
    (
        "book",
        "make a Polyglot opening book from PGN games, or probe one",
        brudno_tools::book::run,
    ),
    (
        "pgn-to-data",
        "convert fastchess/cutechess PGNs with scores into training data",
        brudno_tools::pgn_to_data::run,
    ),
    (
        "quantise",
        "write a training checkpoint as an engine network file",
        brudno_tools::train::quantise_command,
    ),
];

fn usage() -> String {
    let mut text = String::from(
        "Usage: brudno-tools <COMMAND> [OPTIONS]\n       brudno-tools <COMMAND> --help    \
         the command's options and their defaults\n\nCommands:\n",
    );
    for (name, summary, _) in COMMANDS {
        text.push_str(&format!("  {name:<12} {summary}\n"));
    }
    text.push_str(
        "\nExit codes: 0 done, 1 failure, 2 a bad command line. `help COMMAND` is \
         `COMMAND --help`.",
    );
    text
}

/// A bad command line: one line on stderr, exit code 2.
fn refuse(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}

fn main() {
    use lexopt::Arg::{Long, Short, Value};
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut parser = lexopt::Parser::from_args(&args);
    let first = match parser.next() {
        Ok(Some(Short('h') | Long("help"))) => return print_help(&usage()),
        Ok(Some(Value(v))) => v.to_string_lossy().into_owned(),
        Ok(Some(Short(c))) => refuse(&format!(
            "brudno-tools: unknown option -{c} (brudno-tools --help lists the commands)"
        )),
        Ok(Some(Long(o))) => refuse(&format!(
            "brudno-tools: unknown option --{o} (brudno-tools --help lists the commands)"
        )),
        Ok(None) => {
            eprintln!("{}", usage());
            std::process::exit(2);
        }
        Err(e) => refuse(&format!("brudno-tools: {e}")),
    };
    // `help COMMAND` is `COMMAND --help`; `help` alone is `--help`.
    let (name, rest) = if first == "help" {
        match args.get(1) {
            Some(name) => (name.clone(), vec!["--help".to_string()]),
            None => return print_help(&usage()),
        }
    } else {
        (first, args[1..].to_vec())
    };
    let Some((_, _, run)) = COMMANDS.iter().find(|(n, _, _)| *n == name) else {
        refuse(&format!(
            "brudno-tools: unknown command {name:?} (brudno-tools --help lists the commands)"
        ));
    };
    if let Err(e) = run(&rest) {
        if let Some(bad) = e.downcast_ref::<UsageError>() {
            refuse(&format!(
                "brudno-tools {name}: {bad} (brudno-tools {name} --help lists the options)"
            ));
        }
        eprintln!("brudno-tools {name}: {e:#}");
        std::process::exit(1);
    }
}
