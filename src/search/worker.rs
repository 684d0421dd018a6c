//! One thread's search in progress: the node count and the limits it polls, the current
//! line (frames, repetition keys, PV), and the one path by which a move is made in the tree
//! (`make`, `make_null`, `begin_root`), so that everything that follows the line — the
//! frames, the prefetch, the evaluator's incremental state — is updated in one place.

use super::control::SearchControl;
use super::correction::continuation_slot;
use super::faults::{fault_stall, Fault};
use super::history::piece_to;
use super::score::*;
use super::tally::{NoTally, Tally};
use super::thread::ThreadData;
use super::time::TimeBudget;
use super::tt::TranspositionTable;
use super::types::{SearchOptions, TablebaseProbing};
use crate::chess::legality::insufficient_material;
use crate::chess::{Move, Position};
use crate::util::sched::StallWatch;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Which of the switchable methods are on, resolved once per search (the master switch
/// `forward_pruning` already folded in), so that a node tests plain booleans.
#[derive(Clone, Copy, Debug)]
pub struct Switches {
    pub null_move: bool,
    pub lmr: bool,
    pub futility: bool,
    pub lmp: bool,
    pub see: bool,
    pub quiescence: bool,
    pub check_extension: bool,
    pub singular: bool,
}

impl Switches {
    pub fn from_options(o: &SearchOptions) -> Switches {
        let fp = o.forward_pruning;
        Switches {
            null_move: fp && o.null_move_pruning,
            lmr: fp && o.late_move_reductions,
            futility: fp && o.futility_pruning,
            lmp: fp && o.late_move_pruning,
            see: fp && o.see_pruning,
            quiescence: o.quiescence,
            check_extension: o.check_extension,
            singular: o.singular_extensions,
        }
    }
}

/// One search in progress on one thread, counting what it does into `tally` (`NoTally`, the
/// normal search: nothing; see `tally.rs`).
pub struct Worker<'a, T: Tally = NoTally> {
    pub tt: &'a TranspositionTable,
    pub td: &'a mut ThreadData,
    pub control: &'a SearchControl,
    pub switches: Switches,
    pub nodes: u64,
    /// Highest ply reached (plus one) in the current iteration.
    pub seldepth: usize,
    pub stopped: bool,
    /// Where the root's key sits in `td.keys` (the game's positions come before it).
    pub root_idx: usize,
    pub node_limit: u64,
    pub budget: Option<TimeBudget>,
    /// When the clock started: the search start, or the ponderhit.
    pub clock_start: Instant,
    pub start: Instant,
    pub pondering: bool,
    /// Thinking time past which a ponderhit answers at once (the time manager's last target;
    /// `None`: the soft limit).
    pub ponderhit_stop_ms: Option<u64>,
    /// Limits other than an explicit stop apply only once depth 1 is done.
    pub depth1_done: bool,
    pub root_depth: i32,
    /// Null-move verification: no null move for the side to move below this ply.
    pub nmp_min_ply: usize,
    pub tablebases: Option<TablebaseProbing>,
    pub tbhits: u64,
    /// Lazy SMP: the node count of the helper threads. The main thread reads it (reports and
    /// the node limit count every thread's nodes); a helper adds its own to it as it goes.
    pub shared_nodes: Option<&'a AtomicU64>,
    pub is_helper: bool,
    /// A helper's nodes already added to `shared_nodes`.
    published_nodes: u64,
    /// The main thread's handle on the helpers: it tells them the clock's deadline.
    pub helper_control: Option<&'a SearchControl>,
    /// Limits are polled when `nodes & check_mask == 0`: every 1024 nodes alone; with
    /// helpers every 128 (a clock read costs ~20 ns): on a machine with more threads than
    /// cores, each thread runs in short slices, and must see the deadline within one.
    pub(super) check_mask: u64,
    /// Fault injection for the robustness tests: panic once this many nodes are searched
    /// (environment variable `BRUDNO_FAULT_PANIC_AFTER_NODES`; never set in play).
    pub panic_after_nodes: u64,
    /// The main thread of a `movetime` search, and every pondering thread: how long it loses
    /// its core (see `StallWatch`).
    pub stall_watch: Option<StallWatch>,
    /// Pondering on a crowded machine: until when it counts as crowded, and since when this
    /// thread has been awake (`ponder_politely`).
    crowded_until: Option<Instant>,
    awake_since: Instant,
    /// The machine was crowded when this ponder search began: after depth 1 it waits for the
    /// `ponderhit` or the `stop` without searching (`wait_out_pondering`).
    pub ponder_deferred: bool,
    /// It did wait so: the move's thinking begins at the `ponderhit`.
    ponder_waited: bool,
    pub tally: T,
}

/// A wait for a core this long tells a pondering thread that the machine is crowded
/// (`Worker::ponder_politely`), for this long after.
const CROWDED: std::time::Duration = std::time::Duration::from_millis(1);
const CROWDED_FOR: std::time::Duration = std::time::Duration::from_millis(50);
/// While crowded, the pondering thread runs this long, then sleeps `PONDER_OFF` (less if
/// pondering ends). With a nap of 8 ms (and a wake-up every millisecond of it to look for the
/// end of pondering), two pondering engines beside two searching ones on two cores lost 1-2%
/// of the games at 0.05 s a move on time (none with pondering off): the woken ponderer took
/// the core just when a search thread or its guard needed it.
const PONDER_ON: std::time::Duration = std::time::Duration::from_millis(2);
const PONDER_OFF: std::time::Duration = std::time::Duration::from_millis(40);

impl<'a, T: Tally> Worker<'a, T> {
    pub fn new(
        tt: &'a TranspositionTable,
        td: &'a mut ThreadData,
        control: &'a SearchControl,
        switches: Switches,
        tally: T,
    ) -> Worker<'a, T> {
        let now = Instant::now();
        Worker {
            tt,
            td,
            control,
            switches,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            root_idx: 0,
            node_limit: u64::MAX,
            budget: None,
            clock_start: now,
            start: now,
            pondering: control.pondering(),
            ponderhit_stop_ms: None,
            depth1_done: false,
            root_depth: 0,
            nmp_min_ply: 0,
            tablebases: None,
            tbhits: 0,
            shared_nodes: None,
            stall_watch: None,
            crowded_until: None,
            awake_since: now,
            ponder_deferred: false,
            ponder_waited: false,
            is_helper: false,
            published_nodes: 0,
            helper_control: None,
            check_mask: 1023,
            panic_after_nodes: u64::MAX,
            tally,
        }
    }

    /// A search of the root whose game history fills `td.keys[..root_idx]`, set up from the
    /// options (switches, tablebases) and counting its nodes into `shared_nodes` (a helper)
    /// or reading the helpers' count from it (the main thread).
    #[allow(clippy::too_many_arguments)]
    pub fn for_root(
        tt: &'a TranspositionTable,
        td: &'a mut ThreadData,
        control: &'a SearchControl,
        options: &SearchOptions,
        root_idx: usize,
        shared_nodes: &'a AtomicU64,
        is_helper: bool,
        tally: T,
    ) -> Worker<'a, T> {
        let mut worker = Worker::new(tt, td, control, Switches::from_options(options), tally);
        worker.tablebases = options.tablebases.clone();
        worker.root_idx = root_idx;
        worker.shared_nodes = Some(shared_nodes);
        worker.is_helper = is_helper;
        if options.threads > 1 {
            worker.check_mask = 127;
        }
        worker
    }

    /// Nodes searched by every thread (a helper knows only its own).
    pub fn total_nodes(&self) -> u64 {
        match (self.is_helper, self.shared_nodes) {
            (false, Some(shared)) => self.nodes + shared.load(Ordering::Relaxed),
            _ => self.nodes,
        }
    }

    /// Milliseconds on the move's clock (since the search began or the ponderhit).
    pub fn clock_ms(&self) -> u64 {
        self.clock_start.elapsed().as_millis() as u64
    }

    /// Milliseconds of thinking on this move: since the search began, pondering included.
    pub fn thinking_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// The move's clock (and its thinking time) started at `at`, when the `go` was read,
    /// rather than when this worker was made.
    pub fn count_time_from(&mut self, at: Instant) {
        if at < self.start {
            self.start = at;
            self.clock_start = at;
        }
    }

    /// Ponderhit: from now on this is our move, on our clock (the hard limit counts from
    /// here). The time already pondered counts as thinking done: a search that has pondered
    /// past its planned time answers at once (once depth 1 is done).
    pub fn on_ponderhit(&mut self) {
        self.pondering = false;
        // From when the ponderhit was read, not from when this thread noticed it (on a
        // loaded machine that can be milliseconds later).
        let now = Instant::now();
        self.clock_start = self
            .control
            .ponderhit_at()
            .map_or(now, |at| at.clamp(self.start, now));
        if self.ponder_waited {
            // Nothing was thought while waiting: the thinking begins now.
            self.start = self.clock_start;
        }
        if let Some(helpers) = self.helper_control {
            helpers.set_pondering(false);
        }
        self.publish_deadline();
        if self.ponderhit_due() {
            self.stopped = true;
        }
        if !self.is_helper {
            log::debug!(
                target: "time",
                "ponderhit noticed {:?} after it was read, {} ms pondered; answers at once: {}",
                self.clock_start.elapsed(),
                self.thinking_ms(),
                self.stopped
            );
        }
    }

    /// Whether, at a ponderhit, the time already thought is enough: past the verdict's target
    /// (`ponderhit_stop_ms`) or else the plain soft limit, once depth 1 is done.
    pub fn ponderhit_due(&self) -> bool {
        self.budget.is_some_and(|b| {
            self.depth1_done && self.thinking_ms() >= self.ponderhit_stop_ms.unwrap_or(b.soft_ms)
        })
    }

    /// Whether the move's clock has passed the hard limit (never while pondering).
    pub fn past_hard_limit(&self) -> bool {
        self.budget
            .is_some_and(|b| !self.pondering && self.clock_ms() >= b.hard_ms)
    }

    /// Tells the helpers when the clock's hard limit falls (not while pondering), so that
    /// they stop by themselves then even if this thread is descheduled; and the answer's
    /// guard (`engine/`), which plays for this thread should it not have answered by then.
    /// While pondering the guard learns the hard limit only, to count it from the
    /// `ponderhit` as soon as that is read (this thread may be descheduled just then).
    pub fn publish_deadline(&self) {
        let (Some(helpers), Some(b)) = (self.helper_control, self.budget) else {
            return;
        };
        let hard = std::time::Duration::from_millis(b.hard_ms);
        if self.pondering {
            self.control.set_answer_after_ponderhit(hard);
            return;
        }
        let due = self.clock_start + hard;
        helpers.set_deadline(due);
        self.control.set_answer_due(due);
    }

    /// Polled every 1024 nodes, 128 with helpers (and at every node past a node limit).
    #[cold]
    pub fn check_limits(&mut self) {
        if self.nodes >= self.panic_after_nodes {
            panic!("fault injected after {} nodes", self.nodes);
        }
        if let (true, Some(shared)) = (self.is_helper, self.shared_nodes) {
            shared.fetch_add(self.nodes - self.published_nodes, Ordering::Relaxed);
            self.published_nodes = self.nodes;
        }
        if self.control.stop_requested() || (self.is_helper && self.control.past_deadline()) {
            self.stopped = true;
            return;
        }
        if self.pondering && !self.control.pondering() {
            self.on_ponderhit();
        }
        if self.pondering && self.ponder_deferred && self.depth1_done {
            self.wait_out_pondering();
            if self.control.stop_requested() {
                self.stopped = true;
                return;
            }
            if !self.control.pondering() {
                self.on_ponderhit();
            }
        }
        if let Some(watch) = &mut self.stall_watch {
            let now = Instant::now();
            let stall = watch.poll(now);
            if self.pondering {
                self.ponder_politely(now, stall);
            }
        }
        if !self.depth1_done {
            return;
        }
        if self.total_nodes() >= self.node_limit {
            self.stopped = true;
        }
        if self.past_hard_limit() {
            if !self.is_helper && !self.stopped {
                fault_stall(Fault::StallAtDeadline);
            }
            self.stopped = true;
        }
    }

    /// The longest this thread waited for a core in one go (zero when not watched).
    pub fn longest_stall(&self) -> std::time::Duration {
        self.stall_watch
            .as_ref()
            .map_or(std::time::Duration::ZERO, |w| w.longest())
    }

    /// Sleeps until pondering ends (`ponderhit` or `stop`). On a crowded machine pondering
    /// takes a core from a thread that needs it now (the other game's search, this engine's
    /// answer's guard): with both engines pondering beside another game on two cores, 1-2%
    /// of the games at 0.05 s a move were lost on time, none with pondering off.
    #[cold]
    fn wait_out_pondering(&mut self) {
        self.ponder_waited = true;
        self.control.wait_for_stop_or_ponderhit(false);
    }

    /// Pondering is a guess made on the opponent's time. On a machine with more busy threads
    /// than cores it would take a core from a search whose clock runs (the opponent's, or
    /// another game's), and every answer there comes late. So once a pondering thread has
    /// had to wait for a core, it ponders 2 ms in 42 for the next 50 ms, and again each time
    /// it waits (a machine already seen crowded is not pondered on at all:
    /// `wait_out_pondering`). Where a core is free it never waits and ponders at full speed;
    /// `ponderhit` and `stop` wake it at once.
    #[cold]
    fn ponder_politely(&mut self, now: Instant, stall: std::time::Duration) {
        if stall >= CROWDED {
            self.crowded_until = Some(now + CROWDED_FOR);
        }
        let Some(until) = self.crowded_until else {
            return;
        };
        if now >= until {
            self.crowded_until = None;
            return;
        }
        if now.duration_since(self.awake_since) < PONDER_ON {
            return;
        }
        self.control.nap_while_pondering(PONDER_OFF);
        self.awake_since = Instant::now();
    }

    #[inline(always)]
    pub fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & self.check_mask == 0 || self.nodes >= self.node_limit {
            self.check_limits();
        }
    }

    /// The static evaluation of `pos` at `ply` of the line, kept out of the mate range.
    #[inline(always)]
    pub fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        clamp_eval(self.td.eval.evaluate(pos, ply))
    }

    // ----- the line: the one place moves are made -----

    /// Sets the line up at the root: its key, no null move before it, the evaluator's state.
    pub fn begin_root(&mut self, root: &Position) {
        self.td.keys[self.root_idx] = root.key();
        self.td.stack[0].plies_from_null = usize::MAX / 2;
        self.td.eval.begin(root);
    }

    /// The correction-history slot of the two moves that led to `ply`, when both were moves.
    #[inline(always)]
    pub fn correction_moves(&self, ply: usize) -> Option<usize> {
        if ply < 2 {
            return None;
        }
        let last = self.td.stack[ply - 1].piece_to?;
        let before = self.td.stack[ply - 2].piece_to?;
        Some(continuation_slot(last, before))
    }

    /// Plays `m` from `pos` at `ply`: the child position, with its frame, its table entry on
    /// the way and the evaluator following.
    #[inline(always)]
    pub fn make(&mut self, pos: &Position, m: Move, ply: usize) -> Position {
        let child = pos.after(m);
        // Already on its way for most moves (`key_hint_after`); this covers the rest.
        self.tt.prefetch(child.key());
        let f = &mut self.td.stack[ply];
        f.mv = m;
        f.piece_to = pos.piece_at(m.from()).map(|p| piece_to(p, m));
        let from_null = f.plies_from_null + 1;
        self.td.stack[ply + 1].plies_from_null = from_null;
        self.td.eval.on_move(ply, pos, m);
        child
    }

    /// Passes the move at `ply` (null-move pruning).
    #[inline(always)]
    pub fn make_null(&mut self, pos: &Position, ply: usize) -> Position {
        let mut child = *pos;
        child.play_null();
        self.tt.prefetch(child.key());
        let f = &mut self.td.stack[ply];
        f.mv = Move::NULL;
        f.piece_to = None;
        self.td.stack[ply + 1].plies_from_null = 0;
        self.td.eval.on_null(ply);
        child
    }

    /// Repetition: twice in the game before the root, or once anywhere since the root (the
    /// side that could repeat can do so again, so the line is a draw).
    pub fn is_repetition(&self, pos: &Position, ply: usize) -> bool {
        let cur = self.root_idx + ply;
        let reach = (pos.halfmove_clock() as usize)
            .min(self.td.stack[ply].plies_from_null)
            .min(cur);
        let key = pos.key();
        let mut seen_before_root = 0;
        let mut back = 4;
        while back <= reach {
            let i = cur - back;
            if self.td.keys[i] == key {
                if i >= self.root_idx {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root == 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// Draws by rule inside the tree. The 50-move rule yields to a mate on the 100th ply.
    #[inline(always)]
    fn is_draw(&self, pos: &Position, ply: usize) -> bool {
        if pos.halfmove_clock() >= 100 {
            return !pos.in_check() || pos.has_legal_move();
        }
        self.is_repetition(pos, ply) || insufficient_material(pos)
    }

    /// What every node of the main and the quiescence search does first: count itself, take
    /// its place in the line (PV length, selective depth, repetition keys), and end at once
    /// with a value when the search is stopped, the position is a draw by rule, or the ply
    /// limit is reached.
    #[inline(always)]
    pub fn open_node<const PV: bool>(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        self.count_node();
        if self.stopped {
            return Some(0);
        }
        if PV {
            self.td.pv_len[ply] = ply;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        self.td.keys[self.root_idx + ply] = pos.key();
        if self.is_draw(pos, ply) {
            return Some(DRAW);
        }
        if ply >= MAX_PLY - 1 {
            return Some(if pos.in_check() {
                DRAW
            } else {
                self.evaluate(pos, ply)
            });
        }
        None
    }

    /// Updates the triangular PV at `ply` with `m` followed by the child's line.
    #[inline(always)]
    pub fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.td.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.td.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[ply] = m;
        row[ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.td.pv_len[ply] = child_len;
    }
}

/// The running result of a node: the best score and move so far, and the window's lower
/// edge as raised by them.
#[derive(Clone, Copy, Debug)]
pub struct NodeBest {
    pub alpha: i32,
    pub score: i32,
    pub mv: Move,
}

impl NodeBest {
    pub fn new(alpha: i32) -> NodeBest {
        NodeBest {
            alpha,
            score: -INF,
            mv: Move::NULL,
        }
    }

    /// Takes `m`'s score into account; true when it reaches `beta` (a cut-off). `on_raise`
    /// runs when `m` becomes the node's best move (PV nodes copy the child's line there).
    #[inline(always)]
    pub fn offer(&mut self, m: Move, score: i32, beta: i32, on_raise: impl FnOnce()) -> bool {
        if score > self.score {
            self.score = score;
            if score > self.alpha {
                self.mv = m;
                on_raise();
                if score >= beta {
                    return true;
                }
                self.alpha = score;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search over `history` (oldest first) with the current line's keys after it.
    fn with_keys(history: &[u64], line: &[u64], f: impl FnOnce(&mut Worker)) {
        let tt = TranspositionTable::new(1);
        let mut td = ThreadData::new();
        td.keys = history.iter().chain(line).copied().collect();
        td.keys.resize(history.len() + MAX_PLY + 4, 0);
        td.stack[0].plies_from_null = usize::MAX / 2;
        for ply in 1..=line.len() {
            td.stack[ply].plies_from_null = td.stack[ply - 1].plies_from_null + 1;
        }
        let control = SearchControl::new();
        let switches = Switches::from_options(&SearchOptions::default());
        let mut w = Worker::new(&tt, &mut td, &control, switches, NoTally);
        w.root_idx = history.len();
        f(&mut w);
    }

    /// The start position's key and those after Nf3 Nf6 Ng1 Ng8 (back to the start).
    fn knights_out_and_back() -> (Position, Vec<u64>) {
        let mut p = Position::startpos();
        let mut keys = vec![p.key()];
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            p.play(p.parse_uci_move(m).unwrap());
            keys.push(p.key());
        }
        assert_eq!(p.key(), keys[0]);
        (p, keys)
    }

    #[test]
    fn repetitions() {
        let (p, keys) = knights_out_and_back();
        // Once since the root: a draw inside the tree.
        with_keys(&[], &keys[..4], |w| assert!(w.is_repetition(&p, 4)));
        // Once in the game before the root: the game goes on.
        with_keys(&keys[..4], &[], |w| assert!(!w.is_repetition(&p, 0)));
        // Twice before the root: this is the third time.
        let twice: Vec<u64> = keys[..4].iter().chain(&keys[..4]).copied().collect();
        let p8 =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5").unwrap();
        with_keys(&twice, &[], |w| assert!(w.is_repetition(&p8, 0)));
        // Not beyond the last irreversible move (the halfmove clock says 4 plies).
        with_keys(&twice, &[], |w| assert!(!w.is_repetition(&p, 0)));
    }

    #[test]
    fn no_repetition_across_a_null_move() {
        let (p, keys) = knights_out_and_back();
        with_keys(&[], &keys[..4], |w| {
            w.td.stack[2].plies_from_null = 0;
            w.td.stack[3].plies_from_null = 1;
            w.td.stack[4].plies_from_null = 2;
            assert!(!w.is_repetition(&p, 4));
        });
    }

    #[test]
    fn node_best_raises_alpha_and_reports_cut_offs() {
        let m = Move::from_raw(12 | 28 << 6);
        let mut best = NodeBest::new(10);
        let mut raised = 0;
        assert!(!best.offer(m, 5, 50, || raised += 1));
        assert_eq!(
            (best.score, best.alpha, best.mv, raised),
            (5, 10, Move::NULL, 0)
        );
        assert!(!best.offer(m, 20, 50, || raised += 1));
        assert_eq!((best.score, best.alpha, best.mv, raised), (20, 20, m, 1));
        assert!(best.offer(m, 60, 50, || raised += 1));
        assert_eq!((best.score, raised), (60, 2));
    }
}
