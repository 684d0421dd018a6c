//! The α-β tree of a small search, kept node by node, and drawn as Graphviz DOT or as a
//! self-contained SVG: MAX nodes (the root's side to move) as ▲, MIN nodes as ▼, each with the
//! move that led to it, its value and the (α, β) window it was entered with — all from MAX's
//! point of view, as the lecture draws them — and the moves a cut-off left unsearched greyed.

use crate::chess::{Move, Position};
use crate::search::score::{to_public, INF};
use crate::search::Score;
use std::fmt::Write;

/// Why moves were left unsearched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The window closed: at a MAX node the value reached β (a β cut-off), at a MIN node it
    /// fell to α (an α cut-off).
    Window,
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
        let _ = writeln!(
            out,
            "  n{i} [shape={shape}, label=\"{}\\n({}, {})\"];",
            show(n.value()),
            show(a),
            show(b)
        );
        if let Some(p) = n.parent {
            let _ = writeln!(out, "  n{p} -> n{i} [label=\"{}\"];", escape(&n.san));
        }
        if let Some(cut) = &n.cut {
            let _ = writeln!(
                out,
                "  c{i} [shape=box, style=dashed, color=grey, fontcolor=grey, label=\"{}: {}\"];",
                n.cut_name(),
                escape(&unsearched(cut))
            );
            let _ = writeln!(out, "  n{i} -> c{i} [style=dashed, color=grey];");
        }
    }
    let _ = writeln!(out, "}}");
    out
}

const SLOT: f64 = 70.0;
const LEVEL: f64 = 96.0;
const MARGIN: f64 = 40.0;

/// A self-contained SVG (no external program): children left to right in search order,
/// each parent centred over its children.
pub fn to_svg(rec: &Recorder, title: &str) -> String {
    let n = rec.nodes.len();
    let mut x = vec![0.0f64; n];
    let mut stub_x = vec![None; n];
    let mut slot = 0.0;
    if n > 0 {
        place(rec, 0, &mut x, &mut stub_x, &mut slot);
    }
    let depth = rec.nodes.iter().map(|n| n.ply).max().unwrap_or(0) + 1;
    let width = slot.max(1.0) * SLOT + 2.0 * MARGIN;
    let height = depth as f64 * LEVEL + 2.0 * MARGIN + 40.0;
    let y = |ply: usize| MARGIN + 40.0 + ply as f64 * LEVEL;
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
        "<text x=\"{MARGIN}\" y=\"42\" font-size=\"11\" fill=\"#555\">▲ MAX (the root's side to move)  \
         ▼ MIN   value, then (α, β) on entry, from MAX's view   grey: moves a cut-off left unsearched</text>"
    );
    // Edges first, so nodes are drawn over them.
    for (i, node) in rec.nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            let (x1, y1, x2, y2) = (x[p], y(node.ply - 1) + 12.0, x[i], y(node.ply) - 12.0);
            let _ = writeln!(
                s,
                "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#333\"/>"
            );
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#036\">{}</text>",
                (x1 + x2) / 2.0,
                (y1 + y2) / 2.0,
                escape(&node.san)
            );
        }
        if let (Some(cut), Some(sx)) = (&node.cut, stub_x[i]) {
            let (x1, y1, y2) = (x[i], y(node.ply) + 12.0, y(node.ply + 1) - 8.0);
            let _ = writeln!(
                s,
                "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{sx:.1}\" y2=\"{y2:.1}\" stroke=\"#aaa\" stroke-dasharray=\"4 3\"/>"
            );
            let _ = writeln!(
                s,
                "<text x=\"{sx:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#999\">{}</text>",
                y2 + 4.0,
                node.cut_name()
            );
            let _ = writeln!(
                s,
                "<text x=\"{sx:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#999\">{}</text>",
                y2 + 16.0,
                escape(&unsearched(cut))
            );
        }
    }
    for (i, node) in rec.nodes.iter().enumerate() {
        let (cx, cy) = (x[i], y(node.ply));
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
        let fill = if node.is_max() { "#cde" } else { "#edc" };
        let _ = writeln!(
            s,
            "<polygon class=\"node\" points=\"{points}\" fill=\"{fill}\" stroke=\"#333\"/>"
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
    }
    let _ = writeln!(s, "</svg>");
    s
}

/// Gives each node its x: leaves (and cut-off stubs) take the next slot, parents sit midway.
fn place(rec: &Recorder, i: usize, x: &mut [f64], stub_x: &mut [Option<f64>], slot: &mut f64) {
    let node = &rec.nodes[i];
    let mut first = None;
    let mut last = 0.0;
    for &c in &node.children {
        place(rec, c, x, stub_x, slot);
        first.get_or_insert(x[c]);
        last = x[c];
    }
    if node.cut.is_some() {
        let sx = MARGIN + (*slot + 0.5) * SLOT;
        *slot += 1.0;
        stub_x[i] = Some(sx);
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
