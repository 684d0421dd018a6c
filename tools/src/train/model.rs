//! The float network that the trainer optimises: the architecture of the network file format
//! (version 1) in f32, with its loss and its gradient.
//!
//! ```text
//! acc_p  = ft_bias + Σ ft_weights[f]   over the active inputs f of perspective p
//! b      = output bucket of the position (piece count; 0 with one bucket)
//! out    = Σ screlu(acc_stm)·out_w[b][0..H] + Σ screlu(acc_ntm)·out_w[b][H..2H] + out_bias[b]
//! pred   = sigmoid(out · SCALE / EVAL_SCALE)
//! target = wdl · result + (1 − wdl) · sigmoid(score / EVAL_SCALE)
//! loss   = (pred − target)²
//! ```
//! The parameters are one flat vector in the order of the network file (feature weights
//! input-major, feature biases, output weights per bucket side to move first, output biases),
//! so that the optimiser, the gradient reduction and the checkpoint each are one loop over one
//! slice. Whether the inputs are mirrored (`mirror`) changes which inputs a position has, not
//! the parameters.
//!
//! Only the rows of the active inputs are read and written per position (forward and
//! backward), which is what makes a 768-input layer cheap: ~30 rows of H floats per side.

use super::packed::{bucket, Features, Packed};
use brudno::chess::Position;
use brudno::eval::nnue::features::INPUTS;
use brudno::eval::nnue::network::SCALE;
use brudno::util::Rng;
use std::ops::Range;

/// Centipawns per unit of the sigmoid's argument: a score of `s` cp is a predicted result of
/// sigmoid(s / EVAL_SCALE). Not the network's `SCALE` (cp per unit of output), though both are
/// 400 today; the prediction multiplies by SCALE / EVAL_SCALE so either may change.
pub const EVAL_SCALE: f32 = 400.0;

/// Partial sums in a dot product: a fixed order of float additions (so results are
/// reproducible) that is wide enough for the compiler to vectorise.
const LANES: usize = 16;

/// Where each tensor sits in the flat parameter vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub hidden: usize,
    pub buckets: usize,
}

impl Layout {
    pub fn ft_weights(&self) -> Range<usize> {
        0..INPUTS * self.hidden
    }

    pub fn ft_bias(&self) -> Range<usize> {
        let at = INPUTS * self.hidden;
        at..at + self.hidden
    }

    /// Every bucket's output weights, bucket after bucket.
    pub fn out_weights(&self) -> Range<usize> {
        let at = (INPUTS + 1) * self.hidden;
        at..at + 2 * self.hidden * self.buckets
    }

    /// Bucket `b`'s output weights (side to move's half, then the other side's).
    pub fn bucket_weights(&self, b: usize) -> Range<usize> {
        let at = self.out_weights().start + 2 * self.hidden * b;
        at..at + 2 * self.hidden
    }

    pub fn out_bias(&self) -> Range<usize> {
        let at = self.out_weights().end;
        at..at + self.buckets
    }

    pub fn len(&self) -> usize {
        self.out_bias().end
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Views of one parameter (or gradient) vector by tensor, with one bucket's output layer.
struct Parts<'a> {
    ft_w: &'a [f32],
    ft_b: &'a [f32],
    out_stm: &'a [f32],
    out_ntm: &'a [f32],
    out_b: f32,
}

fn parts(v: &[f32], l: Layout, b: usize) -> Parts<'_> {
    let out = &v[l.bucket_weights(b)];
    Parts {
        ft_w: &v[l.ft_weights()],
        ft_b: &v[l.ft_bias()],
        out_stm: &out[..l.hidden],
        out_ntm: &out[l.hidden..],
        out_b: v[l.out_bias().start + b],
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub hidden: usize,
    /// Output buckets: 1 or 8.
    pub buckets: usize,
    /// Horizontally mirrored inputs (the file format's flag bit 0).
    pub mirror: bool,
    pub params: Vec<f32>,
}

/// Per-thread work space for one position.
pub struct Scratch {
    acc_stm: Vec<f32>,
    acc_ntm: Vec<f32>,
    d_stm: Vec<f32>,
    d_ntm: Vec<f32>,
}

impl Scratch {
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            acc_stm: vec![0.0; hidden],
            acc_ntm: vec![0.0; hidden],
            d_stm: vec![0.0; hidden],
            d_ntm: vec![0.0; hidden],
        }
    }
}

/// One position as the network sees it: its inputs, its bucket and its training target.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub features: Features,
    pub bucket: usize,
    pub target: f32,
}

/// clamp(x, 0, 1), written as two selects so that it vectorises (to max and min).
#[inline(always)]
fn crelu(x: f32) -> f32 {
    let x = if x > 0.0 { x } else { 0.0 };
    if x < 1.0 {
        x
    } else {
        1.0
    }
}

#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a position: its result and its score, blended by `wdl`.
#[inline]
pub fn target(p: &Packed, wdl: f32) -> f32 {
    wdl * p.result() + (1.0 - wdl) * sigmoid(p.score as f32 / EVAL_SCALE)
}

/// Neurons per block of the input loops: a block of the accumulator stays in registers (8 of
/// SSE2's 16) while the input rows are added to it, instead of a load and a store of the
/// accumulator per row. The additions are in the same order either way.
const BLOCK: usize = 32;

/// `acc = bias + Σ rows of feats`.
#[inline(always)]
fn accumulate(acc: &mut [f32], bias: &[f32], ft_w: &[f32], feats: &[u16]) {
    let h = acc.len();
    let blocks = h / BLOCK;
    for b in 0..blocks {
        let mut regs = [0.0f32; BLOCK];
        regs.copy_from_slice(&bias[b * BLOCK..][..BLOCK]);
        for &f in feats {
            let row = &ft_w[f as usize * h + b * BLOCK..][..BLOCK];
            for i in 0..BLOCK {
                regs[i] += row[i];
            }
        }
        acc[b * BLOCK..][..BLOCK].copy_from_slice(&regs);
    }
    for j in blocks * BLOCK..h {
        acc[j] = bias[j];
        for &f in feats {
            acc[j] += ft_w[f as usize * h + j];
        }
    }
}

#[inline(always)]
fn screlu_dot(acc: &[f32], w: &[f32]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let n = acc.len() / LANES * LANES;
    for (a, w) in acc[..n].chunks_exact(LANES).zip(w[..n].chunks_exact(LANES)) {
        for i in 0..LANES {
            let x = crelu(a[i]);
            lanes[i] += x * x * w[i];
        }
    }
    let mut tail = 0.0;
    for (&a, &w) in acc[n..].iter().zip(&w[n..]) {
        let x = crelu(a);
        tail += x * x * w;
    }
    lanes.iter().sum::<f32>() + tail
}

/// The output layer's gradient for one perspective, and the accumulator's (into `d`).
#[inline(always)]
fn output_backward(acc: &[f32], w: &[f32], g: f32, grad_w: &mut [f32], d: &mut [f32]) {
    for (((&a, &w), gw), d) in acc.iter().zip(w).zip(grad_w.iter_mut()).zip(d.iter_mut()) {
        let x = crelu(a);
        *gw += g * x * x;
        // d screlu / d a = 2a inside (0, 1), 0 outside.
        let live = (a > 0.0) & (a < 1.0);
        *d = if live { 2.0 * a * g * w } else { 0.0 };
    }
}

/// `grad_ft_w[f] += d` for every input f (a block of `d` kept in registers, as above).
#[inline(always)]
fn scatter(grad_ft_w: &mut [f32], d: &[f32], feats: &[u16]) {
    let h = d.len();
    let blocks = h / BLOCK;
    for b in 0..blocks {
        let mut regs = [0.0f32; BLOCK];
        regs.copy_from_slice(&d[b * BLOCK..][..BLOCK]);
        for &f in feats {
            let row = &mut grad_ft_w[f as usize * h + b * BLOCK..][..BLOCK];
            for i in 0..BLOCK {
                row[i] += regs[i];
            }
        }
    }
    for j in blocks * BLOCK..h {
        for &f in feats {
            grad_ft_w[f as usize * h + j] += d[j];
        }
    }
}

/// The float network's evaluation of `pos` in centipawns, side to move's view: what the
/// quantised network (and so the engine) should reproduce.
pub fn float_eval_cp(model: &Model, pos: &Position) -> f32 {
    float_eval_packed_cp(model, &Packed::from_position(pos, 0, 1))
}

/// `float_eval_cp` of a packed position.
pub fn float_eval_packed_cp(model: &Model, p: &Packed) -> f32 {
    let mut s = Scratch::new(model.hidden);
    model.output(&model.example(p, 0.0), &mut s) * SCALE as f32
}

impl Model {
    pub fn layout(&self) -> Layout {
        Layout {
            hidden: self.hidden,
            buckets: self.buckets,
        }
    }

    /// A fresh network: feature weights uniform in ±0.1, so that an accumulator of ~30
    /// inputs starts around ±0.3, inside SCReLU's live range (0, 1); output weights uniform in
    /// ±1/√(2H); biases zero.
    pub fn new_random(hidden: usize, buckets: usize, mirror: bool, seed: u64) -> Model {
        let layout = Layout { hidden, buckets };
        let mut params = vec![0.0f32; layout.len()];
        let mut rng = Rng::derive(seed, &[0x1417]);
        let mut uniform = |a: f32| ((rng.next_f64() * 2.0 - 1.0) as f32) * a;
        for w in &mut params[layout.ft_weights()] {
            *w = uniform(0.1);
        }
        let out = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in &mut params[layout.out_weights()] {
            *w = uniform(out);
        }
        Model {
            hidden,
            buckets,
            mirror,
            params,
        }
    }

    /// A packed position as this network sees it, with its target for `wdl`.
    #[inline]
    pub fn example(&self, p: &Packed, wdl: f32) -> Example {
        Example {
            features: p.features(self.mirror),
            bucket: bucket(p.pieces(), self.buckets),
            target: target(p, wdl),
        }
    }

    /// The raw output (before the sigmoid); leaves the accumulators in `s`.
    #[inline]
    pub fn output(&self, x: &Example, s: &mut Scratch) -> f32 {
        let p = parts(&self.params, self.layout(), x.bucket);
        accumulate(&mut s.acc_stm, p.ft_b, p.ft_w, x.features.stm());
        accumulate(&mut s.acc_ntm, p.ft_b, p.ft_w, x.features.ntm());
        screlu_dot(&s.acc_stm, p.out_stm) + screlu_dot(&s.acc_ntm, p.out_ntm) + p.out_b
    }

    /// Σ loss over `examples`, in f64.
    pub fn loss_sum(&self, examples: impl Iterator<Item = Example>, s: &mut Scratch) -> f64 {
        let k = SCALE as f32 / EVAL_SCALE;
        examples
            .map(|x| {
                let diff = sigmoid(self.output(&x, s) * k) - x.target;
                (diff * diff) as f64
            })
            .sum()
    }

    /// Adds `weight` × the gradient of Σ loss over `examples` to `grad` (laid out as the
    /// parameters); returns Σ loss (unweighted), in f64.
    pub fn add_gradient(
        &self,
        examples: impl Iterator<Item = Example>,
        weight: f32,
        grad: &mut [f32],
        s: &mut Scratch,
    ) -> f64 {
        let k = SCALE as f32 / EVAL_SCALE;
        let l = self.layout();
        let h = self.hidden;
        let mut loss = 0.0f64;
        for x in examples {
            let out = self.output(&x, s);
            let pred = sigmoid(out * k);
            let diff = pred - x.target;
            loss += (diff * diff) as f64;
            let d_out = weight * 2.0 * diff * pred * (1.0 - pred) * k;
            let p = parts(&self.params, l, x.bucket);
            grad[l.out_bias().start + x.bucket] += d_out;
            let (g_stm, g_ntm) = grad[l.bucket_weights(x.bucket)].split_at_mut(h);
            output_backward(&s.acc_stm, p.out_stm, d_out, g_stm, &mut s.d_stm);
            output_backward(&s.acc_ntm, p.out_ntm, d_out, g_ntm, &mut s.d_ntm);
            for ((b, &u), &v) in grad[l.ft_bias()].iter_mut().zip(&s.d_stm).zip(&s.d_ntm) {
                *b += u + v;
            }
            let g_ft = &mut grad[l.ft_weights()];
            scatter(g_ft, &s.d_stm, x.features.stm());
            scatter(g_ft, &s.d_ntm, x.features.ntm());
        }
        loss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brudno::chess::Outcome;
    use brudno::datagen::format::Sample;

    fn packed() -> Vec<Packed> {
        [
            (
                "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                35,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                -20,
            ),
            ("8/5k2/8/3P4/8/8/5K2/8 b - - 0 60", 210),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 20",
                90,
            ),
            ("2kr3r/ppp2ppp/8/8/8/8/PPP2PPP/2KR3R w - - 0 25", 10),
        ]
        .iter()
        .map(|&(fen, score)| {
            let pos = Position::from_fen(fen).unwrap();
            let best = pos.legal_moves().as_slice()[0];
            Packed::from_sample(&Sample {
                pos,
                best,
                score,
                outcome: Outcome::Draw,
            })
        })
        .collect()
    }

    fn check_gradient(buckets: usize, mirror: bool) {
        let hidden = 16;
        let mut model = Model::new_random(hidden, buckets, mirror, 5);
        // Some biases inside (0, 1) so that both perspectives' neurons are live.
        let layout = model.layout();
        for (i, b) in model.params[layout.ft_bias()].iter_mut().enumerate() {
            *b = 0.05 * i as f32;
        }
        for b in layout.out_bias() {
            model.params[b] = 0.3;
        }
        let data = packed();
        let wdl = 0.3;
        let examples = |m: &Model| data.iter().map(|p| m.example(p, wdl)).collect::<Vec<_>>();
        let xs = examples(&model);
        let mut s = Scratch::new(hidden);
        let mut grad = vec![0.0; layout.len()];
        model.add_gradient(xs.iter().copied(), 1.0, &mut grad, &mut s);
        let last = xs.len() - 1;
        let active = xs[0].features.stm()[3] as usize;
        let checked = [
            active * hidden + 7,
            xs[2].features.ntm()[1] as usize * hidden + 2,
            xs[last].features.stm()[2] as usize * hidden + 5,
            layout.ft_bias().start + 9,
            layout.bucket_weights(xs[0].bucket).start + 4,
            layout.bucket_weights(xs[2].bucket).start + hidden + 11,
            layout.out_bias().start + xs[2].bucket,
        ];
        for &i in &checked {
            let eps = 1e-3;
            let at = |delta: f32| {
                let mut m = model.clone();
                m.params[i] += delta;
                m.loss_sum(examples(&m).into_iter(), &mut Scratch::new(hidden))
            };
            let numeric = (at(eps) - at(-eps)) / (2.0 * eps as f64);
            let analytic = grad[i] as f64;
            assert!(
                // 1%: the f32 loss's rounding over 2·eps is a few tenths of a percent here.
                (numeric - analytic).abs() <= 1e-2 * analytic.abs().max(1e-3),
                "parameter {i}: analytic {analytic:e}, finite difference {numeric:e}"
            );
            assert!(
                analytic.abs() > 1e-5,
                "parameter {i} has no gradient to check"
            );
        }
        // An input that no position has gets no gradient.
        let unused = 384 + 7; // an enemy pawn on h1 (impossible)
        assert!(grad[unused * hidden..(unused + 1) * hidden]
            .iter()
            .all(|&g| g == 0.0));
        if buckets > 1 {
            // A bucket no position falls in gets no gradient.
            let used: Vec<usize> = xs.iter().map(|x| x.bucket).collect();
            let idle = (0..buckets).find(|b| !used.contains(b)).unwrap();
            assert!(grad[layout.bucket_weights(idle)].iter().all(|&g| g == 0.0));
        }
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        check_gradient(1, false);
    }

    #[test]
    fn the_gradient_matches_finite_differences_with_buckets_and_mirroring() {
        check_gradient(8, true);
    }

    #[test]
    fn the_output_is_the_same_for_a_colour_flipped_position() {
        let a = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        )
        .unwrap();
        let b = Position::from_fen(
            "rnb1k1nr/pppp1ppp/8/2b1p3/4P2q/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
        )
        .unwrap();
        for (buckets, mirror) in [(1, false), (8, true)] {
            let model = Model::new_random(32, buckets, mirror, 9);
            // The same inputs in another order: equal up to float rounding.
            let (x, y) = (float_eval_cp(&model, &a), float_eval_cp(&model, &b));
            assert!((x - y).abs() < 1e-3, "{x} {y}");
            assert!(x.abs() > 1.0);
        }
    }
}
