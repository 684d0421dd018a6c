//! `brudno` with no arguments speaks UCI on stdin/stdout. With arguments, they are run as
//! one command line (`brudno bench`, `brudno perft 5`, `brudno "go depth 10"`) and it exits.

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let uci = brudno::uci::Uci::new();
    if args.is_empty() {
        uci.run_stdin();
    } else {
        uci.run_lines(&brudno::uci::argv_to_lines(&args));
    }
}
