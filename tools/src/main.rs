//! `brudno-tools`: the offline tools that are not part of the engine binary.

fn main() {
    eprintln!("usage: brudno-tools <command> …  (no command yet)");
    std::process::exit(2);
}
