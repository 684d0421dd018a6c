//! `brudno` with no arguments speaks UCI on stdin/stdout. With arguments, they are run as
//! one command line (`brudno bench`, `brudno perft 5`, `brudno "go depth 10"`) and it exits.
//! `brudno tune …` runs the evaluation tuner.

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("tune") {
        // The evaluation tuner (src/eval/tune.rs): a developer's tool, not a protocol command.
        if let Err(e) = brudno::eval::tune::run(&args[1..]) {
            eprintln!("tune: {e:#}");
            std::process::exit(1);
        }
        return;
    }
    if args.first().map(String::as_str) == Some("datagen") {
        // Self-play training data (src/datagen/): a developer's tool, not a protocol command.
        let run = brudno::datagen::Settings::from_args(&args[1..]).and_then(brudno::datagen::run);
        if let Err(e) = run {
            eprintln!("{e:#}");
            std::process::exit(1);
        }
        return;
    }
    let uci = brudno::uci::Uci::new();
    if args.is_empty() {
        uci.run_stdin();
    } else {
        uci.run_lines(&brudno::uci::argv_to_lines(&args));
    }
}
