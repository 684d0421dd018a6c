//! Minimax, α-β in generator order and α-β with Brudno's move ordering, each counting what it
//! examines; the recorder (if any) keeps the tree for a picture.

use super::tree::{Cut, Recorder};
use super::LectureError;
use crate::chess::{GenType, Move, MoveList, Position};
use crate::search::history::{piece_to, Histories, PieceTo, QuietContext};
use crate::search::picker::MovePicker;
use crate::search::score::{mated_in, INF};
use crate::search::{Limits, Score, SearchControl, SearchOptions, Searcher};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// (a) every move of every node, to the horizon.
    Minimax,
    /// (b) α-β, the moves in the order the generator makes them.
    AlphaBeta,
    /// (c) α-β with Brudno's move ordering: iterative deepening whose best moves come first,
    /// then captures by value, killers and history (no table cut-offs).
    Ordered,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Minimax => "minimax",
            Variant::AlphaBeta => "alpha-beta, generator order",
            Variant::Ordered => "alpha-beta, Brudno's ordering",
        }
    }
}

/// What one search examined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Positions whose moves were searched.
    pub interior: u64,
    /// Positions evaluated at the horizon.
    pub leaves: u64,
    /// Checkmates and stalemates found before the horizon.
    pub mates: u64,
    pub stalemates: u64,
    /// Legal moves at the interior nodes (for the average branching factor).
    pub moves: u64,
    /// Moves actually searched at interior nodes.
    pub searched: u64,
    /// Cut-offs (α-β only), and how many of them came on the first move searched.
    pub cutoffs: u64,
    pub first_move_cutoffs: u64,
}

impl Counts {
    pub fn nodes(&self) -> u64 {
        self.interior + self.leaves + self.mates + self.stalemates
    }

    /// Legal moves per interior node.
    pub fn branching(&self) -> f64 {
        self.moves as f64 / self.interior.max(1) as f64
    }
}

#[derive(Clone, Debug)]
pub struct Outcome {
    /// The minimax value, centipawns from the side to move's view.
    pub value: i32,
    pub best: Option<Move>,
    /// The final search (for `Ordered`, its last iteration).
    pub counts: Counts,
    /// Every iteration of `Ordered` added up (the same as `counts` for the others).
    pub total: Counts,
}

struct Teacher<'a> {
    variant: Variant,
    counts: Counts,
    cap: u64,
    recorder: Option<&'a mut Recorder>,
    histories: Box<Histories>,
    killers: [[Move; 2]; 64],
    best_moves: HashMap<u64, Move>,
    root_moves: Option<Vec<Move>>,
}

/// Searches `pos` to `depth` plies with `variant`; `recorder` keeps the tree if given (for
/// `Ordered`, the last iteration's).
pub fn search(
    pos: &Position,
    depth: u32,
    variant: Variant,
    cap: u64,
    root_moves: Option<Vec<Move>>,
    mut recorder: Option<&mut Recorder>,
) -> Result<Outcome, LectureError> {
    if !(1..=super::MAX_DEPTH).contains(&depth) {
        return Err(LectureError::Depth(depth as i64));
    }
    let mut t = Teacher {
        variant,
        counts: Counts::default(),
        cap,
        recorder: None,
        histories: Histories::new(),
        killers: [[Move::NULL; 2]; 64],
        best_moves: HashMap::new(),
        root_moves,
    };
    let mut total = Counts::default();
    let first = if variant == Variant::Ordered {
        1
    } else {
        depth
    };
    let mut result = (0, None);
    for d in first..=depth {
        t.counts = Counts::default();
        if d == depth {
            t.recorder = recorder.take();
            if let Some(r) = t.recorder.as_deref_mut() {
                r.clear();
            }
        }
        result = t.node(pos, d, 0, -INF, INF, None, [None; 2])?;
        add(&mut total, &t.counts);
    }
    Ok(Outcome {
        value: result.0,
        best: result.1,
        counts: t.counts,
        total,
    })
}

fn add(total: &mut Counts, c: &Counts) {
    total.interior += c.interior;
    total.leaves += c.leaves;
    total.mates += c.mates;
    total.stalemates += c.stalemates;
    total.moves += c.moves;
    total.searched += c.searched;
    total.cutoffs += c.cutoffs;
    total.first_move_cutoffs += c.first_move_cutoffs;
}

impl Teacher<'_> {
    /// Negamax with an (α, β) window; minimax ignores the window.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        pos: &Position,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        parent: Option<usize>,
        cont: [Option<PieceTo>; 2],
    ) -> Result<(i32, Option<Move>), LectureError> {
        if self.counts.nodes() >= self.cap {
            return Err(LectureError::NodeCap(self.cap));
        }
        let mut list = MoveList::new();
        pos.generate(GenType::All, &mut list);
        let mut legal: Vec<Move> = list.to_vec();
        if ply == 0 {
            if let Some(only) = &self.root_moves {
                legal.retain(|m| only.contains(m));
            }
        }
        let id = self
            .recorder
            .as_deref_mut()
            .map(|r| r.enter(parent, ply, alpha, beta));
        // A mate or stalemate at the horizon is still a leaf there (perft counts it); before
        // the horizon it ends the line early and is counted apart.
        let value = match (legal.is_empty(), pos.in_check()) {
            (true, true) => Some(mated_in(ply)),
            (true, false) => Some(0),
            (false, _) if depth == 0 => Some(crate::eval::evaluate(pos)),
            _ => None,
        };
        if let Some(value) = value {
            if depth == 0 {
                self.counts.leaves += 1;
            } else if pos.in_check() {
                self.counts.mates += 1;
            } else {
                self.counts.stalemates += 1;
            }
            self.leave(id, value);
            return Ok((value, None));
        }
        self.counts.interior += 1;
        self.counts.moves += legal.len() as u64;

        let order = self.order(pos, &legal, ply, cont);
        let mut best = (-INF, None);
        for (i, &m) in order.iter().enumerate() {
            self.counts.searched += 1;
            if let (Some(r), Some(id)) = (self.recorder.as_deref_mut(), id) {
                r.next_move(id, pos, m);
            }
            let child = pos.after(m);
            let pt = pos.piece_at(m.from()).map(|p| piece_to(p, m));
            let (v, _) = self.node(&child, depth - 1, ply + 1, -beta, -alpha, id, [pt, cont[0]])?;
            let v = -v;
            if v > best.0 {
                best = (v, Some(m));
            }
            if self.variant == Variant::Minimax {
                continue;
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                self.counts.cutoffs += 1;
                self.counts.first_move_cutoffs += u64::from(i == 0);
                if self.variant == Variant::Ordered {
                    self.learn(pos, m, &order[..i], ply, depth, cont);
                }
                if let (Some(r), Some(id)) = (self.recorder.as_deref_mut(), id) {
                    let rest: Vec<String> = order[i + 1..].iter().map(|&m| pos.to_san(m)).collect();
                    r.cut(id, Cut::Window, rest);
                }
                break;
            }
        }
        if self.variant == Variant::Ordered {
            if let Some(m) = best.1 {
                self.best_moves.insert(pos.key(), m);
            }
        }
        self.leave(id, best.0);
        Ok(best)
    }

    fn leave(&mut self, id: Option<usize>, value: i32) {
        if let (Some(r), Some(id)) = (self.recorder.as_deref_mut(), id) {
            r.exit(id, value);
        }
    }

    /// The moves in the order this variant searches them.
    fn order(
        &self,
        pos: &Position,
        legal: &[Move],
        ply: usize,
        cont: [Option<PieceTo>; 2],
    ) -> Vec<Move> {
        if self.variant != Variant::Ordered {
            return legal.to_vec();
        }
        let best = self
            .best_moves
            .get(&pos.key())
            .copied()
            .unwrap_or(Move::NULL);
        let killers = self.killers[ply.min(63)];
        let counter = self.histories.counter(cont[0]);
        let ctx = QuietContext::new(pos, cont);
        let mut picker = MovePicker::new(pos, best, killers, counter, ctx);
        let mut out = Vec::with_capacity(legal.len());
        while let Some(m) = picker.next(pos, &self.histories) {
            if legal.contains(&m) {
                out.push(m);
            }
        }
        out
    }

    /// What a cut-off teaches the ordering: killers, history and the counter move.
    fn learn(
        &mut self,
        pos: &Position,
        m: Move,
        tried: &[Move],
        ply: usize,
        depth: u32,
        cont: [Option<PieceTo>; 2],
    ) {
        if pos.is_capture(m) || m.promotion_piece().is_some() {
            self.histories.update_capture(pos, m, depth as i32, true);
            return;
        }
        let quiets: Vec<Move> = tried
            .iter()
            .copied()
            .filter(|&q| !pos.is_capture(q) && q.promotion_piece().is_none())
            .collect();
        self.histories
            .update_quiets(pos, m, &quiets, &QuietContext::new(pos, cont), depth as i32);
        self.histories.set_counter(cont[0], m);
        let k = &mut self.killers[ply.min(63)];
        if k[0] != m {
            k[1] = k[0];
            k[0] = m;
        }
    }
}

/// (d) the full engine to `depth` with `options` (by default every method as shipped:
/// quiescence, table, pruning), a fresh 16 MiB table; its node count and score.
pub fn engine_nodes(
    pos: &Position,
    depth: u32,
    options: &SearchOptions,
) -> (u64, Option<Move>, Option<Score>) {
    let limits = Limits {
        depth: Some(depth),
        ..Default::default()
    };
    let mut searcher = Searcher::new(16);
    let result = searcher.search(
        pos,
        &[],
        &limits,
        options,
        &SearchControl::new(),
        &mut |_| {},
    );
    (result.nodes, result.best, result.score)
}
