//! AdamW (Adam with decoupled weight decay, Loshchilov & Hutter), over the flat parameter
//! vector, followed by the clip to ±`WEIGHT_CLIP` that the quantised network relies on.
//!
//! Dense: every parameter's moments decay every step, touched or not, as in plain Adam. The
//! step is a few hundred thousand multiply-adds, small beside a batch's gradient.

#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    pub weight_decay: f32,
    /// First and second moments, one per parameter.
    pub m: Vec<f32>,
    pub v: Vec<f32>,
    /// Steps taken (for the bias correction).
    pub t: u64,
}

impl AdamW {
    pub fn new(len: usize, weight_decay: f32) -> AdamW {
        AdamW {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay,
            m: vec![0.0; len],
            v: vec![0.0; len],
            t: 0,
        }
    }

    /// One step with learning rate `lr`; every parameter ends within ±`clip`.
    pub fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32, clip: f32) {
        self.t += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        // Bias corrections folded into the step size and epsilon (the usual efficient form).
        let c1 = 1.0 - (b1 as f64).powf(self.t as f64);
        let c2 = 1.0 - (b2 as f64).powf(self.t as f64);
        let step = (lr as f64 * c2.sqrt() / c1) as f32;
        let eps = (self.eps as f64 * c2.sqrt()) as f32;
        let decay = 1.0 - lr * self.weight_decay;
        for (((w, &g), m), v) in params
            .iter_mut()
            .zip(grad)
            .zip(self.m.iter_mut())
            .zip(self.v.iter_mut())
        {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            let x = *w * decay - step * *m / (v.sqrt() + eps);
            *w = x.clamp(-clip, clip);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adam_minimises_a_quadratic_and_respects_the_clip() {
        // f(w) = Σ (w - c)², with one target beyond the clip.
        let targets = [0.5f32, -1.0, 3.0];
        let mut w = vec![0.0f32; 3];
        let mut opt = AdamW::new(3, 0.0);
        for _ in 0..3000 {
            let g: Vec<f32> = w.iter().zip(&targets).map(|(w, c)| 2.0 * (w - c)).collect();
            opt.step(&mut w, &g, 0.01, 1.98);
        }
        assert!(
            (w[0] - 0.5).abs() < 1e-2 && (w[1] + 1.0).abs() < 1e-2,
            "{w:?}"
        );
        assert_eq!(w[2], 1.98);
    }

    #[test]
    fn the_first_step_moves_each_weight_by_the_learning_rate() {
        // Adam's first step is lr × sign(g) (bias-corrected moments are g and g²).
        let mut w = vec![0.0f32, 0.0];
        let mut opt = AdamW::new(2, 0.0);
        opt.step(&mut w, &[3.0, -0.001], 0.01, 1.98);
        assert!(
            (w[0] + 0.01).abs() < 1e-6 && (w[1] - 0.01).abs() < 1e-5,
            "{w:?}"
        );
    }
}
