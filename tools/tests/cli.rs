//! The `brudno-tools` binary as a script sees it: `--help` answers on stdout with exit code
//! 0, a bad command line is one line on stderr naming the option, with exit code 2.

use std::process::{Command, Output};

fn tools(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_brudno-tools"))
        .args(args)
        .output()
        .expect("the binary runs")
}

const SUBCOMMANDS: [&str; 6] = [
    "train",
    "eval-loss",
    "tune",
    "book",
    "pgn-to-data",
    "quantise",
];

#[test]
fn help_is_an_answer() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let out = tools(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        for name in SUBCOMMANDS {
            assert!(text.contains(&format!("  {name} ")), "{text}");
        }
    }
    for name in SUBCOMMANDS {
        for args in [vec![name, "--help"], vec![name, "-h"], vec!["help", name]] {
            let out = tools(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(
                text.starts_with(&format!("Usage: brudno-tools {name}")),
                "{args:?}: {text}"
            );
            assert!(out.stderr.is_empty(), "{args:?}");
        }
    }
}

#[test]
fn a_bad_command_line_is_one_line_and_exit_code_2() {
    for (args, says) in [
        (
            &["train", "--data", "d", "--out", "r", "--epochs", "x"][..],
            "--epochs x: not a whole number",
        ),
        (
            &["train", "--data", "d", "--out", "r", "--bogus"],
            "unknown option --bogus",
        ),
        (&["quantise", "--out", "n.nnue"], "--checkpoint is required"),
        (
            &["eval-loss", "--data", "a.vf", "--wdl", "2"],
            "--wdl 2: out of range",
        ),
        (&["tune", "--threads", "0"], "--threads 0: out of range"),
        (
            &["book", "build", "--pgn", "g", "--out", "b", "--max-ply"],
            "--max-ply needs a value",
        ),
        (&["pgn-to-data", "g.pgn"], "--out is required"),
        (&["nonsense"], "unknown command \"nonsense\""),
        (&["--bogus"], "unknown option --bogus"),
    ] {
        let out = tools(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let text = String::from_utf8(out.stderr).unwrap();
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(
            text.contains(says) && text.contains("--help"),
            "{args:?}: {text}"
        );
        assert!(out.stdout.is_empty());
    }
    // No command at all: the usage, on stderr.
    let out = tools(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().starts_with("Usage:"));
}

#[test]
fn a_failure_of_the_work_is_exit_code_1() {
    let out = tools(&["eval-loss", "--data", "/nonexistent/brudno-tools-test.vf"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("brudno-tools-test.vf"));
}
