//! `brudno` with no arguments speaks UCI on stdin/stdout. With arguments, they are run as
//! one command line (`brudno bench`, `brudno perft 5`, `brudno "go depth 10"`) and it exits.
//! `brudno datagen …` generates training data; `--help` and `--version` say what they say.

const USAGE: &str = "\
Usage: brudno                 speak UCI on standard input and output (what a GUI starts)
       brudno <command>       run one UCI line (or several, one per line) and exit:
                              bench [depth], perft <depth> [fen], \"go depth 10\", help
       brudno datagen [--out DIR] [--threads N] [--games N] [--nodes N] [--seed S] ...
                              self-play training data (see docs/evaluation.md)
       brudno --version       the version and the commit it was built from
       brudno --help          this text

The UCI commands and options are described by the `help` command and in protocol.md.";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Datagen's threads allocate as they play; they keep glibc's heap per thread.
    if args.first().map(String::as_str) != Some("datagen") {
        brudno::util::memory::one_heap_for_all_threads();
    }
    init_logging();
    match args.first().map(String::as_str) {
        Some("--help" | "-h") => println!("{USAGE}"),
        Some("--version" | "-V") => println!("{}", brudno::uci::version_line()),
        Some("datagen") => datagen(&args[1..]),
        None => brudno::uci::Uci::new().run_stdin(),
        Some(_) => brudno::uci::Uci::new().run_lines(&brudno::uci::argv_to_lines(&args)),
    }
}

/// `brudno datagen`: exit code 2 for a bad command line, 1 for a failure (or a mismatch
/// that `--verify` found), so that scripts can tell a typo from a broken run.
fn datagen(args: &[String]) {
    use brudno::datagen::args::{help, parse, Command};
    use std::io::Write;
    let result = match parse(args) {
        Ok(Command::Help) => {
            // A closed pipe (`| head`) is no failure of the help.
            let _ = writeln!(std::io::stdout(), "{}", help());
            return;
        }
        Ok(Command::Run(settings)) => brudno::datagen::run(settings),
        Ok(Command::Verify(dir)) => match brudno::datagen::verify(&dir) {
            Ok(true) => Ok(()),
            Ok(false) => std::process::exit(1),
            Err(e) => Err(e),
        },
        Err(e) => {
            eprintln!("brudno datagen: {e}\n(brudno datagen --help lists the options)");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("{e:#}");
        std::process::exit(1);
    }
}

/// Logs go to stderr (`RUST_LOG` says what), or to the file `BRUDNO_LOG_FILE` names (`{pid}`
/// in it becomes the process id: a tournament runner can keep each engine's log apart without
/// reading it), appended to. Stamped to the microsecond: the time logs are about milliseconds.
fn init_logging() {
    let mut builder =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    builder.format_timestamp_micros();
    let file = std::env::var("BRUDNO_LOG_FILE")
        .ok()
        .filter(|p| !p.is_empty());
    let opened = file.map(|path| {
        let path = path.replace("{pid}", &std::process::id().to_string());
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path);
        (path, file)
    });
    let mut failure = None;
    match opened {
        Some((_, Ok(file))) => {
            builder.target(env_logger::Target::Pipe(Box::new(file)));
        }
        Some((path, Err(e))) => failure = Some(format!("cannot open {path} ({e})")),
        None => {}
    }
    builder.init();
    if let Some(why) = failure {
        log::error!("BRUDNO_LOG_FILE: {why}; logging to stderr");
    }
}
