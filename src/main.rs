use brudno::chess::{perft, Position};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let fen = args.get(3..).map(|v| v.join(" ")).filter(|s| !s.is_empty());
    let pos = fen.map(|f| Position::from_fen(&f).unwrap()).unwrap_or_else(Position::startpos);
    let t = std::time::Instant::now();
    let mut total = 0;
    for (m, n) in perft::divide(&pos, depth) { println!("{}: {}", pos.move_to_uci(m, false), n); total += n; }
    println!("\nNodes searched: {total} ({:?})", t.elapsed());
}
