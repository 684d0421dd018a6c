//! The learning-rate schedule: a pure function of the position in the run (epoch, batch), so
//! that a resumed run follows the same schedule without storing any of its state.
//!
//! - `step` (default): the base rate until `drop_at` epochs are done, then × 0.1. The default
//!   drop is at 75% of the epochs: long at a high rate to learn, a short low-rate tail to settle.
//! - `cosine`: from the base rate down to 1% of it along half a cosine over the whole run,
//!   per batch.

use anyhow::{bail, Result};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    Step { drop_at: u32 },
    Cosine,
}

/// The step schedule's factor after the drop.
pub const STEP_FACTOR: f32 = 0.1;
/// Where the cosine schedule ends, as a fraction of the base rate.
pub const COSINE_FLOOR: f32 = 0.01;

impl Schedule {
    /// `step`, `step:E` (drop after E epochs) or `cosine`, for a run of `epochs`.
    pub fn parse(text: &str, epochs: u32) -> Result<Schedule> {
        match text.split_once(':') {
            None if text == "step" => Ok(Schedule::Step {
                drop_at: Schedule::default_drop(epochs),
            }),
            None if text == "cosine" => Ok(Schedule::Cosine),
            Some(("step", e)) => match e.parse() {
                Ok(drop_at) => Ok(Schedule::Step { drop_at }),
                Err(_) => bail!("--schedule {text}: step:E needs a whole number of epochs"),
            },
            _ => bail!("--schedule {text}: expected step, step:E or cosine"),
        }
    }

    pub fn default_drop(epochs: u32) -> u32 {
        (epochs * 3).div_ceil(4)
    }

    /// The rate for batch `batch` of `batches` in epoch `epoch` (both from 0).
    pub fn lr(&self, base: f32, epochs: u32, epoch: u32, batch: usize, batches: usize) -> f32 {
        match *self {
            Schedule::Step { drop_at } if epoch >= drop_at => base * STEP_FACTOR,
            Schedule::Step { .. } => base,
            Schedule::Cosine => {
                let done = (epoch as f64 + batch as f64 / batches.max(1) as f64) / epochs as f64;
                let c = 0.5 * (1.0 + (std::f64::consts::PI * done).cos());
                base * (COSINE_FLOOR + (1.0 - COSINE_FLOOR) * c as f32)
            }
        }
    }

    /// As the run's settings record it.
    pub fn describe(&self) -> String {
        match self {
            Schedule::Step { drop_at } => format!("step:{drop_at}"),
            Schedule::Cosine => "cosine".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_and_cosine_rates() {
        let s = Schedule::parse("step", 20).unwrap();
        assert_eq!(s, Schedule::Step { drop_at: 15 });
        assert_eq!(s.lr(1.0, 20, 14, 99, 100), 1.0);
        assert_eq!(s.lr(1.0, 20, 15, 0, 100), 0.1);
        assert_eq!(
            Schedule::parse("step:3", 20).unwrap(),
            Schedule::Step { drop_at: 3 }
        );
        let c = Schedule::parse("cosine", 10).unwrap();
        assert_eq!(c.lr(1.0, 10, 0, 0, 100), 1.0);
        assert!((c.lr(1.0, 10, 5, 0, 100) - 0.505).abs() < 1e-6);
        assert!((c.lr(1.0, 10, 9, 100, 100) - 0.01).abs() < 1e-6);
        assert!(Schedule::parse("linear", 10).is_err());
    }
}
