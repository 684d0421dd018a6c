//! The engine's own search tree, node by node, as a counting search with a log installed
//! records it (`tree D engine`): each node's window and value, the move that led to it, why it
//! ended early if it did, and the moves it left unsearched and why. Bounded: past its cap the
//! log keeps nothing more and says so. The picture is drawn elsewhere (src/lecture/tree.rs).

use super::counter::Counter;

/// One node of the recorded tree. Values and windows are negamax: from the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceNode {
    pub parent: Option<usize>,
    pub ply: usize,
    /// The move that led here in SAN, `null` for a null move, or a label for a search of the
    /// same position (`verify`, `singular`); empty at the root.
    pub san: String,
    pub quiescence: bool,
    pub alpha: i32,
    pub beta: i32,
    pub value: i32,
    /// Why the node returned before (or instead of) searching its moves.
    pub ended: Option<Counter>,
    /// Moves it did not search, grouped by why, in the order they were passed over.
    pub skipped: Vec<(Counter, Vec<String>)>,
}

#[derive(Clone, Debug, Default)]
pub struct TreeLog {
    pub nodes: Vec<TraceNode>,
    cap: usize,
    overflowed: bool,
    /// The nodes entered and not yet left (`None`: not recorded, past the cap).
    open: Vec<Option<usize>>,
    pending: String,
}

impl TreeLog {
    /// A log that keeps at most `cap` nodes.
    pub fn new(cap: usize) -> TreeLog {
        TreeLog {
            cap,
            ..TreeLog::default()
        }
    }

    pub fn clear(&mut self) {
        self.nodes.clear();
        self.open.clear();
        self.pending.clear();
        self.overflowed = false;
    }

    /// Whether the tree had more nodes than the cap (those past it are not kept).
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub(super) fn next_move(&mut self, san: String) {
        self.pending = san;
    }

    pub(super) fn enter(&mut self, ply: usize, alpha: i32, beta: i32, quiescence: bool) {
        let san = std::mem::take(&mut self.pending);
        if self.overflowed || self.nodes.len() >= self.cap {
            self.overflowed = true;
            self.open.push(None);
            return;
        }
        let id = self.nodes.len();
        self.nodes.push(TraceNode {
            parent: self.open.last().copied().flatten(),
            ply,
            san,
            quiescence,
            alpha,
            beta,
            value: 0,
            ended: None,
            skipped: Vec::new(),
        });
        self.open.push(Some(id));
    }

    pub(super) fn leave(&mut self, value: i32) {
        if let Some(Some(id)) = self.open.pop() {
            self.nodes[id].value = value;
        }
    }

    fn current(&mut self) -> Option<&mut TraceNode> {
        let id = (*self.open.last()?)?;
        Some(&mut self.nodes[id])
    }

    pub(super) fn ended(&mut self, e: Counter) {
        if let Some(n) = self.current() {
            n.ended = Some(e);
        }
    }

    pub(super) fn skipped(&mut self, e: Counter, sans: &[String]) {
        if sans.is_empty() {
            return;
        }
        if let Some(n) = self.current() {
            match n.skipped.last_mut() {
                Some((last, moves)) if *last == e => moves.extend_from_slice(sans),
                _ => n.skipped.push((e, sans.to_vec())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_nest_and_the_cap_keeps_the_first_ones() {
        let mut log = TreeLog::new(3);
        log.enter(0, -10, 10, false);
        log.next_move("e4".into());
        log.enter(1, -10, 10, false);
        log.skipped(Counter::Futility, &["a3".into()]);
        log.skipped(Counter::Futility, &["h3".into()]);
        log.skipped(Counter::SeeQuiet, &["Bb5".into()]);
        log.leave(-5);
        log.next_move("null".into());
        log.enter(1, -11, -10, true);
        log.ended(Counter::StandPat);
        log.leave(-20);
        log.enter(1, 0, 1, false);
        log.enter(2, 0, 1, false);
        log.leave(3);
        log.leave(4);
        log.ended(Counter::NullMoveCut);
        log.leave(20);
        assert_eq!(log.len(), 3);
        assert!(log.overflowed());
        let [root, e4, null] = [&log.nodes[0], &log.nodes[1], &log.nodes[2]];
        assert_eq!(
            (root.parent, root.value, root.ended),
            (None, 20, Some(Counter::NullMoveCut))
        );
        assert_eq!((e4.parent, e4.san.as_str(), e4.value), (Some(0), "e4", -5));
        assert_eq!(
            e4.skipped,
            vec![
                (Counter::Futility, vec!["a3".to_string(), "h3".to_string()]),
                (Counter::SeeQuiet, vec!["Bb5".to_string()])
            ]
        );
        assert_eq!((null.san.as_str(), null.quiescence), ("null", true));
        log.clear();
        assert!(log.is_empty() && !log.overflowed());
    }
}
