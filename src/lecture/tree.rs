//! The α-β tree of a small search, kept node by node, and drawn as Graphviz DOT or as a
//! self-contained SVG: MAX nodes (the root's side to move) as ▲, MIN nodes as ▼, each with the
//! move that led to it, its value and the (α, β) window it was entered with — all from MAX's
//! point of view, as the lecture draws them — and the moves a cut-off left unsearched greyed.
//! The engine's own tree (`from_trace`) adds its quiescence nodes (green, dashed), why a node
//! ended early (in red: a table cut, a null-move cut, reverse futility, standing pat …) and
//! the moves its pruning rules passed over (greyed, with the rule's name).

use crate::chess::{Move, Position};
use crate::search::score::{to_public, INF};
use crate::search::{Counter, Score, TreeLog};
use std::fmt::Write;

/// Why moves were left unsearched, or a node ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The window closed: at a MAX node the value reached β (a β cut-off), at a MIN node it
    /// fell to α (an α cut-off).
    Window,
    /// One of the engine's rules (its table, null move, futility, SEE …).
    Engine(Counter),
}

#[derive(Clone, Debug)]
pub struct Node {
    pub parent: Option<usize>,
    pub ply: usize,
    /// The move that led here in SAN ("" at the root).
    pub san: String,
    /// The negamax window on entry and the value, from the side to move's view.
    alpha: i32,
    beta: i32,
    value: i32,
    pub children: Vec<usize>,
    /// The moves left unsearched after a cut-off.
    pub cut: Option<(Cut, Vec<String>)>,
    /// Moves a pruning rule passed over, grouped by rule (the engine's tree).
    pub pruned: Vec<(Cut, Vec<String>)>,
    /// Why the node returned early (the engine's tree: a table cut, a null-move cut …).
    pub ended: Option<Cut>,
    /// A quiescence node (the engine's tree).
    pub quiescence: bool,
}

impl Node {
    /// MAX: the root's side is to move here.
    pub fn is_max(&self) -> bool {
        self.ply.is_multiple_of(2)
    }

    /// The value from MAX's point of view.
    pub fn value(&self) -> i32 {
        if self.is_max() {
            self.value
        } else {
            -self.value
        }
    }

    /// (α, β) from MAX's point of view.
    pub fn window(&self) -> (i32, i32) {
        if self.is_max() {
            (self.alpha, self.beta)
        } else {
            (-self.beta, -self.alpha)
        }
    }

    /// "β-cut" or "α-cut", as the lecture names the cut-off at this node.
    pub fn cut_name(&self) -> &'static str {
        if self.is_max() {
            "β-cut"
        } else {
            "α-cut"
        }
    }

    /// What a picture calls `cut` at this node.
    pub fn name_of(&self, cut: Cut) -> &'static str {
        match cut {
            Cut::Window => self.cut_name(),
            Cut::Engine(e) => e.label(),
        }
    }

    /// The greyed groups of unsearched moves: the cut-off's, then the pruning rules'.
    fn stubs(&self) -> impl Iterator<Item = &(Cut, Vec<String>)> {
        self.cut.iter().chain(&self.pruned)
    }
}

/// Collects the nodes of one search in the order it visits them.
#[derive(Default)]
pub struct Recorder {
    pub nodes: Vec<Node>,
    pending: String,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder::default()
    }

    pub fn clear(&mut self) {
        self.nodes.clear();
        self.pending.clear();
    }

    pub(super) fn enter(
        &mut self,
        parent: Option<usize>,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent,
            ply,
            san: std::mem::take(&mut self.pending),
            alpha,
            beta,
            value: 0,
            children: Vec::new(),
            cut: None,
            pruned: Vec::new(),
            ended: None,
            quiescence: false,
        });
        if let Some(p) = parent {
            self.nodes[p].children.push(id);
        }
        id
    }

    pub(super) fn next_move(&mut self, _id: usize, pos: &Position, m: Move) {
        self.pending = pos.to_san(m);
    }

    pub(super) fn cut(&mut self, id: usize, cut: Cut, rest: Vec<String>) {
        if !rest.is_empty() {
            self.nodes[id].cut = Some((cut, rest));
        }
    }

    pub(super) fn exit(&mut self, id: usize, value: i32) {
        self.nodes[id].value = value;
    }

    /// The engine's tree as its counting search recorded it: the rest of the moves after a
    /// cut-off go in `cut`, the moves its rules pruned in `pruned`.
    pub fn from_trace(log: &TreeLog) -> Recorder {
        let mut rec = Recorder::new();
        for (id, t) in log.nodes.iter().enumerate() {
            let mut cut = None;
            let mut pruned = Vec::new();
            for (e, moves) in &t.skipped {
                match e {
                    Counter::BetaCut | Counter::QuiescenceCut => {
                        cut = Some((Cut::Window, moves.clone()))
                    }
                    e => pruned.push((Cut::Engine(*e), moves.clone())),
                }
            }
            rec.nodes.push(Node {
                parent: t.parent,
                ply: t.ply,
                san: t.san.clone(),
                alpha: t.alpha,
                beta: t.beta,
                value: t.value,
                children: Vec::new(),
                cut,
                pruned,
                ended: t.ended.map(Cut::Engine),
                quiescence: t.quiescence,
            });
            if let Some(p) = t.parent {
                rec.nodes[p].children.push(id);
            }
        }
        rec
    }

    /// Nodes searched (the greyed moves are not nodes: they were never visited).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// A value as the pictures print it: centipawns, ±∞ for an open window, M3 / −M3 for mates.
pub fn show(v: i32) -> String {
    if v >= INF {
        "+∞".into()
    } else if v <= -INF {
        "−∞".into()
    } else {
        match to_public(v) {
            Score::Cp(cp) => cp.to_string(),
            Score::Mate(n) if n > 0 => format!("M{n}"),
            Score::Mate(n) => format!("−M{}", -n),
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn unsearched(cut: &(Cut, Vec<String>)) -> String {
    let moves = &cut.1;
    let shown: Vec<&str> = moves.iter().take(3).map(String::as_str).collect();
    let more = moves.len().saturating_sub(3);
    let mut text = shown.join(" ");
    if more > 0 {
        let _ = write!(text, " +{more}");
    }
    text
}

/// Whether the tree has what only the engine's tree has (quiescence, early ends, pruning).
fn has_engine_marks(rec: &Recorder) -> bool {
    rec.nodes
        .iter()
        .any(|n| n.quiescence || n.ended.is_some() || !n.pruned.is_empty())
}

/// Graphviz DOT: `dot -Tsvg tree.dot > tree.svg` draws it.
pub fn to_dot(rec: &Recorder, title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph alphabeta {{");
    let _ = writeln!(out, "  label=\"{}\"; labelloc=t;", escape(title));
    let _ = writeln!(out, "  node [fontname=\"Helvetica\", fontsize=10];");
    for (i, n) in rec.nodes.iter().enumerate() {
        let (a, b) = n.window();
        let shape = if n.is_max() {
            "triangle"
        } else {
            "invtriangle"
        };
        let ended = n
            .ended
            .map_or(String::new(), |c| format!("\\n{}", n.name_of(c)));
        let style = if n.quiescence {
            ", style=\"dashed,filled\", fillcolor=\"#ddeedd\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  n{i} [shape={shape}{style}, label=\"{}\\n({}, {}){}\"];",
            show(n.value()),
            show(a),
            show(b),
            escape(&ended)
        );
        if let Some(p) = n.parent {
            let _ = writeln!(out, "  n{p} -> n{i} [label=\"{}\"];", escape(&n.san));
        }
        for (k, stub) in n.stubs().enumerate() {
            let _ = writeln!(
                out,
                "  c{i}_{k} [shape=box, style=dashed, color=grey, fontcolor=grey, label=\"{}: {}\"];",
                n.name_of(stub.0),
                escape(&unsearched(stub))
            );
            let _ = writeln!(out, "  n{i} -> c{i}_{k} [style=dashed, color=grey];");
        }
    }
    let _ = writeln!(out, "}}");
    out
}

const SLOT: f64 = 70.0;
const LEVEL: f64 = 120.0;
/// How far below a node's centre its labels (value, window, why it ended) reach: the lines to
/// its children start there, so that they never cross its text.
const LABELS: f64 = 42.0;
const LABELS_ENDED: f64 = 52.0;
const MARGIN: f64 = 40.0;

/// A self-contained SVG (no external program): children left to right in search order,
/// each parent centred over its children.
pub fn to_svg(rec: &Recorder, title: &str) -> String {
    let n = rec.nodes.len();
    let mut x = vec![0.0f64; n];
    let mut stub_x = vec![Vec::new(); n];
    let mut slot = 0.0;
    if n > 0 {
        place(rec, 0, &mut x, &mut stub_x, &mut slot);
    }
    // Rows by distance from the root (a search of the same position, such as a null-move
    // verification, sits a row below the node that ran it, though at the same ply).
    let mut level = vec![0usize; n];
    for (i, node) in rec.nodes.iter().enumerate() {
        level[i] = node.parent.map_or(0, |p| level[p] + 1);
    }
    // The deepest row holding a node or a greyed stub (a stub sits a row below its node).
    let deepest = rec
        .nodes
        .iter()
        .zip(&level)
        .map(|(node, &l)| l + usize::from(node.stubs().next().is_some()))
        .max()
        .unwrap_or(0);
    let engine = has_engine_marks(rec);
    let width = slot.max(1.0) * SLOT + 2.0 * MARGIN;
    let y = |level: usize| MARGIN + 40.0 + level as f64 * LEVEL;
    let height = y(deepest) + LABELS_ENDED + MARGIN;
    let below = |node: &Node| {
        if node.ended.is_some() {
            LABELS_ENDED
        } else {
            LABELS
        }
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"Helvetica, Arial, sans-serif\">"
    );
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{MARGIN}\" y=\"24\" font-size=\"14\">{}</text>",
        escape(title)
    );
    let _ = writeln!(
        s,
        "<text x=\"{MARGIN}\" y=\"42\" font-size=\"11\" fill=\"#555\">▲ MAX (the root's side to move) · \
         ▼ MIN · value, then (α, β) on entry, from MAX's view · grey: moves a cut-off left unsearched</text>"
    );
    if engine {
        let _ = writeln!(
            s,
            "<text x=\"{MARGIN}\" y=\"58\" font-size=\"11\" fill=\"#555\">green, dashed: quiescence nodes · \
             red: why a node ended early · grey stubs named by a rule: moves it pruned</text>"
        );
    }
    // Edges first, so nodes are drawn over them.
    for (i, node) in rec.nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            let parent = &rec.nodes[p];
            let (x1, y1, x2, y2) = (x[p], y(level[p]) + below(parent), x[i], y(level[i]) - 12.0);
            let _ = writeln!(
                s,
                "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#333\"/>"
            );
            // The move's name nearer the child, where the lines have spread apart, on a white
            // halo so that a line crossing it does not hide it.
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#036\" \
                 stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">{}</text>",
                x1 + 0.6 * (x2 - x1),
                y1 + 0.6 * (y2 - y1) + 3.0,
                escape(&node.san)
            );
        }
        for (stub, &sx) in node.stubs().zip(&stub_x[i]) {
            let (x1, y1, y2) = (x[i], y(level[i]) + below(node), y(level[i] + 1) - 8.0);
            let _ = writeln!(
                s,
                "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{sx:.1}\" y2=\"{y2:.1}\" stroke=\"#aaa\" stroke-dasharray=\"4 3\"/>"
            );
            let _ = writeln!(
                s,
                "<text x=\"{sx:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#999\">{}</text>",
                y2 + 4.0,
                node.name_of(stub.0)
            );
            let _ = writeln!(
                s,
                "<text x=\"{sx:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#999\">{}</text>",
                y2 + 16.0,
                escape(&unsearched(stub))
            );
        }
    }
    for (i, node) in rec.nodes.iter().enumerate() {
        let (cx, cy) = (x[i], y(level[i]));
        let points = if node.is_max() {
            format!(
                "{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                cx,
                cy - 12.0,
                cx - 12.0,
                cy + 10.0,
                cx + 12.0,
                cy + 10.0
            )
        } else {
            format!(
                "{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                cx,
                cy + 12.0,
                cx - 12.0,
                cy - 10.0,
                cx + 12.0,
                cy - 10.0
            )
        };
        let (fill, dash) = match (node.quiescence, node.is_max()) {
            (true, _) => ("#ddeedd", " stroke-dasharray=\"3 2\""),
            (false, true) => ("#cde", ""),
            (false, false) => ("#edc", ""),
        };
        let _ = writeln!(
            s,
            "<polygon class=\"node\" points=\"{points}\" fill=\"{fill}\" stroke=\"#333\"{dash}/>"
        );
        let (a, b) = node.window();
        let _ = writeln!(
            s,
            "<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
            cy + 26.0,
            show(node.value())
        );
        let _ = writeln!(
            s,
            "<text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#666\">({}, {})</text>",
            cy + 37.0,
            show(a),
            show(b)
        );
        if let Some(c) = node.ended {
            let _ = writeln!(
                s,
                "<text class=\"ended\" x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#b00\">{}</text>",
                cy + 48.0,
                node.name_of(c)
            );
        }
    }
    let _ = writeln!(s, "</svg>");
    s
}

/// Gives each node its x: leaves (and greyed stubs) take the next slot, parents sit midway.
fn place(rec: &Recorder, i: usize, x: &mut [f64], stub_x: &mut [Vec<f64>], slot: &mut f64) {
    let node = &rec.nodes[i];
    let mut first = None;
    let mut last = 0.0;
    for &c in &node.children {
        place(rec, c, x, stub_x, slot);
        first.get_or_insert(x[c]);
        last = x[c];
    }
    for _ in node.stubs() {
        let sx = MARGIN + (*slot + 0.5) * SLOT;
        *slot += 1.0;
        stub_x[i].push(sx);
        first.get_or_insert(sx);
        last = sx;
    }
    x[i] = match first {
        Some(f) => (f + last) / 2.0,
        None => {
            let v = MARGIN + (*slot + 0.5) * SLOT;
            *slot += 1.0;
            v
        }
    };
}
