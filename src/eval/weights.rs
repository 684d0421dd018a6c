//! Evaluation weights (bootstrap). Overwritten by `brudno tune`.

use super::params::NUM_WEIGHTS;
use super::score::S;

pub static WEIGHTS: [S; NUM_WEIGHTS] = [S::ZERO; NUM_WEIGHTS];
