//! The staged move picker: moves come out best-first, and each stage is generated only when
//! the ones before it failed to cut the node off.
//!
//! ```text
//!  | TT MOVE | GOOD CAPTURES | KILLER 1 | KILLER 2 | COUNTER | QUIETS  | BAD CAPTURES |
//!  | hash    | MVV-LVA, SEE≥0| quiet moves that cut at   | history | SEE<0 and    |
//!  |         | queen promos  | this ply / after that move| ordered | under-promos |
//! ```
//! In quiescence only the TT move (if noisy), the good and the bad captures are produced,
//! unless the side to move is in check: then every evasion is.
//!
//! Every move the picker yields is legal: generated moves come from the legal generator, and
//! the TT move, killers and counter-move are checked first. No move is yielded twice.

use super::history::{Histories, PieceTo};
use super::see::see_ge;
use crate::chess::legality::{is_legal, is_noisy};
use crate::chess::moves::MAX_MOVES;
use crate::chess::PIECE_VALUES;
use crate::chess::{GenType, Move, MoveList, PieceType, Position};
use crate::util::stack_list::StackList;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Stage {
    TtMove,
    GenNoisy,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    GenQuiet,
    Quiet,
    BadNoisy,
    Done,
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    counter: Move,
    cont: [Option<PieceTo>; 2],
    /// Noisy moves first (the bad ones compacted to the front as they are found), then the
    /// quiet moves appended after them.
    list: MoveList,
    /// `scores[i]` is the ordering score of `list[i]`, pushed as the moves are generated.
    scores: StackList<i32, MAX_MOVES>,
    cur: usize,
    end_noisy: usize,
    end_bad: usize,
    bad_cur: usize,
    /// Quiescence: captures and promotions only (unless in check).
    noisy_only: bool,
    skip_quiets: bool,
}

impl MovePicker {
    /// A picker for a full-width node.
    pub fn new(
        pos: &Position,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        cont: [Option<PieceTo>; 2],
    ) -> MovePicker {
        let tt_move = if is_legal(pos, tt_move) {
            tt_move
        } else {
            Move::NULL
        };
        MovePicker {
            stage: if tt_move.is_null() {
                Stage::GenNoisy
            } else {
                Stage::TtMove
            },
            tt_move,
            killers,
            counter,
            cont,
            list: MoveList::new(),
            scores: StackList::new(),
            cur: 0,
            end_noisy: 0,
            end_bad: 0,
            bad_cur: 0,
            noisy_only: false,
            skip_quiets: false,
        }
    }

    /// A picker for quiescence: noisy moves only, or every evasion when in check.
    pub fn quiescence(pos: &Position, tt_move: Move) -> MovePicker {
        let in_check = pos.in_check();
        let tt_move = if in_check || is_noisy(pos, tt_move) {
            tt_move
        } else {
            Move::NULL
        };
        let mut p = MovePicker::new(pos, tt_move, [Move::NULL; 2], Move::NULL, [None; 2]);
        p.noisy_only = !in_check;
        p
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// Late-move and futility pruning: no more quiet moves from here on.
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// The next move, best first, or `None` when all are out.
    pub fn next(&mut self, pos: &Position, hist: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenNoisy;
                    return Some(self.tt_move);
                }
                Stage::GenNoisy => {
                    pos.generate(GenType::Noisy, &mut self.list);
                    self.end_noisy = self.list.len();
                    for i in 0..self.end_noisy {
                        self.scores.push(noisy_score(pos, self.list[i], hist));
                    }
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    if self.cur < self.end_noisy {
                        let m = self.pick_best(self.cur, self.end_noisy);
                        self.cur += 1;
                        if m == self.tt_move {
                            continue;
                        }
                        let underpromotion =
                            m.promotion_piece().is_some_and(|p| p != PieceType::Queen);
                        if underpromotion || !(cheap_good(pos, m) || see_ge(pos, m, 0)) {
                            // Keep it for the last stage; the slot behind `cur` is free.
                            self.list.as_mut_slice()[self.end_bad] = m;
                            self.end_bad += 1;
                            continue;
                        }
                        return Some(m);
                    }
                    self.stage = if self.noisy_only {
                        Stage::BadNoisy
                    } else {
                        Stage::Killer1
                    };
                }
                Stage::Killer1 | Stage::Killer2 => {
                    let second = self.stage == Stage::Killer2;
                    let k = self.killers[second as usize];
                    self.stage = if second {
                        Stage::Counter
                    } else {
                        Stage::Killer2
                    };
                    if self.skip_quiets {
                        self.stage = Stage::BadNoisy;
                        continue;
                    }
                    let repeated = second && k == self.killers[0];
                    if k != self.tt_move && !repeated && is_quiet_legal(pos, k) {
                        return Some(k);
                    }
                }
                Stage::Counter => {
                    self.stage = Stage::GenQuiet;
                    let c = self.counter;
                    if !self.skip_quiets
                        && c != self.tt_move
                        && !self.killers.contains(&c)
                        && is_quiet_legal(pos, c)
                    {
                        return Some(c);
                    }
                }
                Stage::GenQuiet => {
                    if self.skip_quiets {
                        self.stage = Stage::BadNoisy;
                        continue;
                    }
                    pos.generate(GenType::Quiet, &mut self.list);
                    let (start, end) = (self.end_noisy, self.list.len());
                    // Each quiet move and its score packed into one distinct sort key.
                    let mut keys = StackList::<u64, MAX_MOVES>::new();
                    for (i, &m) in self.list.as_slice()[start..end].iter().enumerate() {
                        keys.push(quiet_key(hist.quiet_score(pos, m, &self.cont), i, m));
                    }
                    sort_keys_descending(keys.as_mut_slice());
                    for (slot, &k) in self.list.as_mut_slice()[start..]
                        .iter_mut()
                        .zip(keys.as_slice())
                    {
                        *slot = Move::from_raw(k as u16);
                    }
                    self.cur = start;
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => {
                    if !self.skip_quiets && self.cur < self.list.len() {
                        let m = self.list[self.cur];
                        self.cur += 1;
                        if m == self.tt_move || self.killers.contains(&m) || m == self.counter {
                            continue;
                        }
                        return Some(m);
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if self.bad_cur < self.end_bad {
                        let m = self.list[self.bad_cur];
                        self.bad_cur += 1;
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Selection sort step: brings the best-scored move of `from..end` to `from`.
    #[inline(always)]
    fn pick_best(&mut self, from: usize, end: usize) -> Move {
        let mut best = from;
        for i in from + 1..end {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.list.as_mut_slice().swap(from, best);
        self.scores.swap(from, best);
        self.list[from]
    }
}

/// A capture of a piece worth at least the capturer cannot lose material (a king's capture
/// is legal only where nothing recaptures): no exchange evaluation needed.
#[inline(always)]
fn cheap_good(pos: &Position, m: Move) -> bool {
    match (pos.piece_at(m.from()), pos.captured(m)) {
        (Some(p), Some(v)) => {
            p.kind() == PieceType::King || PIECE_VALUES[p.kind().index()] <= PIECE_VALUES[v.index()]
        }
        _ => false,
    }
}

/// Killers and counter-moves are quiet moves remembered from elsewhere in the tree.
#[inline(always)]
fn is_quiet_legal(pos: &Position, m: Move) -> bool {
    !m.is_null() && !is_noisy(pos, m) && is_legal(pos, m)
}

/// Most valuable victim first, least valuable attacker breaking ties, capture history within.
#[inline(always)]
fn noisy_score(pos: &Position, m: Move, hist: &Histories) -> i32 {
    let victim = pos.captured(m).map_or(0, |t| PIECE_VALUES[t.index()]);
    let promo = m.promotion_piece().map_or(0, |p| PIECE_VALUES[p.index()]);
    let attacker = pos
        .piece_at(m.from())
        .map_or(0, |p| p.kind().index() as i32);
    (victim + promo) * 32 - attacker + hist.capture_score(pos, m) / 16
}

/// A quiet move's sort key: its score above everything, then its place in the generated list
/// (earlier first among equal scores), then the move itself, which the key carries.
#[inline(always)]
fn quiet_key(score: i32, index: usize, m: Move) -> u64 {
    let biased = (score as i64 - i32::MIN as i64) as u64;
    biased << 32 | ((u16::MAX as usize - index) as u64) << 16 | m.raw() as u64
}

/// Best first. The keys are distinct, so any sort gives the order a stable sort of the scores
/// would; the library's unstable sort beat an insertion sort (bench nps 1.02×).
fn sort_keys_descending(keys: &mut [u64]) {
    keys.sort_unstable_by(|a, b| b.cmp(a));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::perft::suite_positions_and_children;
    use crate::search::see::see;

    #[test]
    fn quiet_keys_sort_by_score_then_by_generation_order() {
        let pos = Position::startpos();
        let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        let scores = [5, -3, 5, i32::MIN, i32::MAX, 0, -3, 5, 0, -16_384];
        let mut keys: Vec<u64> = (0..scores.len())
            .map(|i| quiet_key(scores[i], i, moves[i]))
            .collect();
        sort_keys_descending(&mut keys);
        let mut want: Vec<usize> = (0..scores.len()).collect();
        want.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
        let got: Vec<Move> = keys.iter().map(|&k| Move::from_raw(k as u16)).collect();
        assert_eq!(got, want.iter().map(|&i| moves[i]).collect::<Vec<_>>());
    }

    #[test]
    fn cheap_good_captures_never_lose_material() {
        for p in suite_positions_and_children() {
            for &m in p.legal_moves().iter() {
                if cheap_good(&p, m) {
                    assert!(see(&p, m) >= 0, "{m:?} in {}", p.to_fen());
                }
            }
        }
    }
}
