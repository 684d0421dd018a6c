//! The engine's options: one table in which each entry is everything about one option — its
//! name, its type and range, one line of help, how its value is read from and written to
//! [`Settings`], and what else setting it does. Defaults are not written here: an option's
//! default is its value in `Settings::default()` (whose search part is
//! `SearchOptions::default()`), so that no default exists twice. The UCI layer prints the
//! table as `option` lines, `help` prints it, and protocol.md's table is checked against it.

use super::settings::Settings;
use crate::search::strength::{MAX_ELO, MIN_ELO};

/// An option's type (and range), as UCI names them.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Check,
    Spin { min: i64, max: i64 },
    Combo { choices: &'static [&'static str] },
    Button,
    Text,
}

/// A checked option value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Text(String),
    Pressed,
}

/// What setting an option does besides storing its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    None,
    /// Reallocate the transposition table (`Hash`).
    ResizeHash,
    /// Forget the table and the histories (`Clear Hash`).
    ClearHash,
    /// Open the `BookFile`.
    LoadBook,
    /// Open the tables on `SyzygyPath`.
    LoadTablebases,
    /// The protocol layer opens its transcript file (`Debug Log File`).
    OpenLog,
    /// Read the network file (`EvalFile`).
    LoadNetwork,
}

pub struct OptionSpec {
    pub name: &'static str,
    pub kind: Kind,
    /// One line for `help` and protocol.md.
    pub help: &'static str,
    pub get: fn(&Settings) -> Value,
    pub set: fn(&mut Settings, Value),
    pub effect: Effect,
    /// Settable by name but not listed by `uci` or `help`: a measurement control that a GUI's
    /// options dialog should not offer.
    pub hidden: bool,
}

pub const MAX_HASH_MB: i64 = 65536;
pub const MAX_THREADS: i64 = crate::search::MAX_THREADS as i64;

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        _ => unreachable!("checked as a spin"),
    }
}

fn boolean(v: &Value) -> bool {
    matches!(v, Value::Bool(true))
}

fn text(v: Value) -> String {
    match v {
        Value::Text(t) => t,
        _ => unreachable!("checked as a string"),
    }
}

macro_rules! check {
    ($name:literal, $help:literal, $($field:ident).+) => {
        OptionSpec {
            name: $name,
            kind: Kind::Check,
            help: $help,
            get: |s| Value::Bool(s.$($field).+),
            set: |s, v| s.$($field).+ = boolean(&v),
            effect: Effect::None,
            hidden: false,
        }
    };
}

macro_rules! spin {
    ($name:literal, $help:literal, $min:expr, $max:expr, $($field:ident).+ as $t:ty) => {
        OptionSpec {
            name: $name,
            kind: Kind::Spin { min: $min, max: $max },
            help: $help,
            get: |s| Value::Int(s.$($field).+ as i64),
            set: |s, v| s.$($field).+ = int(&v) as $t,
            effect: Effect::None,
            hidden: false,
        }
    };
}

macro_rules! string {
    ($name:literal, $help:literal, $field:ident, $effect:expr) => {
        OptionSpec {
            name: $name,
            kind: Kind::Text,
            help: $help,
            get: |s| Value::Text(s.$field.clone()),
            set: |s, v| s.$field = text(v),
            effect: $effect,
            hidden: false,
        }
    };
}

/// Every option, in the order `uci` lists them (hidden ones are settable, not listed).
pub static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        effect: Effect::ResizeHash,
        hidden: false,
        ..spin!(
            "Hash",
            "transposition table size in MiB",
            1,
            MAX_HASH_MB,
            hash_mb as usize
        )
    },
    spin!(
        "Threads",
        "search threads (Lazy SMP: helpers share the hash table)",
        1,
        MAX_THREADS,
        search.threads as usize
    ),
    OptionSpec {
        name: "Clear Hash",
        kind: Kind::Button,
        help: "empty the transposition table and histories",
        get: |_| Value::Pressed,
        set: |_, _| {},
        effect: Effect::ClearHash,
        hidden: false,
    },
    spin!(
        "Move Overhead",
        "milliseconds kept in reserve per move for GUI and network lag",
        0,
        5000,
        search.move_overhead_ms as u64
    ),
    check!(
        "Ponder",
        "the GUI may send go ponder (tells the engine to plan for it)",
        ponder
    ),
    spin!(
        "MultiPV",
        "number of best lines to report",
        1,
        256,
        search.multipv as usize
    ),
    check!(
        "OwnBook",
        "play moves from the opening book in games (never under go depth, nodes, mate or infinite)",
        own_book
    ),
    string!(
        "BookFile",
        "Polyglot book file; empty = the embedded book",
        book_file,
        Effect::LoadBook
    ),
    spin!(
        "BookDepth",
        "use the book only before this game ply (half-move)",
        0,
        1000,
        book_depth as u32
    ),
    check!(
        "BookBestMove",
        "always play the book's highest-weight move (false: at random by weight)",
        book_best_move
    ),
    string!(
        "SyzygyPath",
        "folders with Syzygy tables, separated by ':' or ';'",
        syzygy_path,
        Effect::LoadTablebases
    ),
    spin!(
        "SyzygyProbeDepth",
        "minimum remaining depth for tablebase probes in the search",
        1,
        100,
        syzygy_probe_depth as u32
    ),
    spin!(
        "SyzygyProbeLimit",
        "probe only positions with at most this many pieces",
        0,
        7,
        syzygy_probe_limit as u32
    ),
    check!(
        "Syzygy50MoveRule",
        "count wins that the 50-move rule spoils as draws",
        syzygy_50_move_rule
    ),
    check!(
        "UCI_Chess960",
        "Chess960: castling is written king-takes-rook (e1h1)",
        chess960
    ),
    check!(
        "UCI_LimitStrength",
        "play weaker, at about UCI_Elo (a node budget and a choice among the best lines)",
        limit_strength
    ),
    spin!(
        "UCI_Elo",
        "the rating UCI_LimitStrength plays at",
        MIN_ELO as i64,
        MAX_ELO as i64,
        uci_elo as u32
    ),
    check!(
        "UCI_ShowWDL",
        "add 'wdl W D L' (per mille) to info lines",
        show_wdl
    ),
    string!(
        "Debug Log File",
        "append the full I/O transcript, with timestamps, to this file",
        debug_log_file,
        Effect::OpenLog
    ),
    OptionSpec {
        name: "Evaluation",
        kind: Kind::Combo {
            choices: &["hce", "nnue"],
        },
        help: "the static evaluation: hce (hand-crafted) or nnue (the network of EvalFile)",
        get: |s| Value::Text(s.evaluation.clone()),
        set: |s, v| s.evaluation = text(v),
        effect: Effect::None,
        hidden: false,
    },
    string!(
        "EvalFile",
        "network file for Evaluation nnue; empty = the embedded network",
        eval_file,
        Effect::LoadNetwork
    ),
    // The lecture's improvements (docs/search.md, "What each method is worth"); defaults follow
    // measurement.
    check!(
        "ForwardPruning",
        "master switch: off disables all the forward-pruning methods below",
        search.forward_pruning
    ),
    check!(
        "NullMovePruning",
        "null-move pruning (zugzwang guard, verification at high depth)",
        search.null_move_pruning
    ),
    check!(
        "LateMoveReductions",
        "late-move reductions with re-search",
        search.late_move_reductions
    ),
    check!(
        "FutilityPruning",
        "reverse futility and futility pruning; delta pruning in quiescence",
        search.futility_pruning
    ),
    check!(
        "LateMovePruning",
        "skip late quiet moves at low depth",
        search.late_move_pruning
    ),
    check!(
        "SeePruning",
        "prune moves that lose material by static exchange",
        search.see_pruning
    ),
    check!(
        "Quiescence",
        "search captures until quiet at the horizon (off: static evaluation)",
        search.quiescence
    ),
    check!(
        "CheckExtension",
        "search one ply deeper when in check",
        search.check_extension
    ),
    check!(
        "SingularExtensions",
        "extend a TT move that is much better than every other",
        search.singular_extensions
    ),
    check!(
        "SecondarySearch",
        "under a clock, verify the chosen move one ply deeper: play it at once if it holds, think on if not",
        search.secondary_search
    ),
    OptionSpec {
        hidden: true,
        ..spin!(
            "SecondaryPlacebo",
            "for measurement: 0 = the real verdict; N = a coin says surprise N% of the time",
            0,
            100,
            search.secondary_placebo as u32
        )
    },
];

/// The options `uci` and `help` list, in order (all but the hidden ones).
pub fn listed() -> impl Iterator<Item = &'static OptionSpec> {
    OPTIONS.iter().filter(|s| !s.hidden)
}

/// Finds an option by name, ignoring case (and surrounding blanks).
pub fn find(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
}

/// Checks a (trimmed) `setoption` value for a spin option named `name`: a whole number from
/// `min` to `max`.
pub fn check_spin(name: &str, min: i64, max: i64, value: Option<&str>) -> Result<i64, String> {
    let Some(v) = value else {
        return Err(format!("option {name} needs a value ({min} to {max})"));
    };
    match v.parse::<i64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(n) => Err(format!(
            "option {name} must be between {min} and {max}, not {n}"
        )),
        Err(_) => Err(format!("option {name} takes a whole number, not '{v}'")),
    }
}

impl OptionSpec {
    /// The value with which the engine starts.
    pub fn default_value(&self) -> Value {
        (self.get)(&Settings::default())
    }

    /// Checks a value given with `setoption` against this option's type and range.
    pub fn check(&self, value: Option<&str>) -> Result<Value, String> {
        let value = value.map(str::trim);
        match &self.kind {
            Kind::Button => Ok(Value::Pressed),
            Kind::Check => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => Ok(Value::Bool(true)),
                Some("false") => Ok(Value::Bool(false)),
                Some(v) => Err(format!(
                    "option {} takes true or false, not '{v}'",
                    self.name
                )),
                None => Err(format!(
                    "option {} needs a value (true or false)",
                    self.name
                )),
            },
            Kind::Spin { min, max } => check_spin(self.name, *min, *max, value).map(Value::Int),
            Kind::Combo { choices } => {
                let v = value.unwrap_or("");
                choices
                    .iter()
                    .find(|c| c.eq_ignore_ascii_case(v))
                    .map(|c| Value::Text(c.to_string()))
                    .ok_or_else(|| {
                        format!(
                            "option {} takes one of {}, not '{v}'",
                            self.name,
                            choices.join(", ")
                        )
                    })
            }
            Kind::Text => {
                // `<empty>` is how some GUIs send an empty string.
                let v = value.unwrap_or("");
                Ok(Value::Text(if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked() {
        let hash = find("hash").unwrap();
        assert_eq!(hash.check(Some("64")), Ok(Value::Int(64)));
        assert!(hash.check(Some("0")).is_err());
        assert!(hash.check(Some("lots")).is_err());
        assert!(hash.check(None).is_err());
        let ponder = find("PONDER").unwrap();
        assert_eq!(ponder.check(Some("True")), Ok(Value::Bool(true)));
        assert!(ponder.check(Some("yes")).is_err());
        assert!(find("move overhead").is_some());
        assert!(find("No Such Option").is_none());
        let book = find("BookFile").unwrap();
        assert_eq!(book.check(Some("<empty>")), Ok(Value::Text(String::new())));
    }

    #[test]
    fn names_are_unique() {
        for (i, a) in OPTIONS.iter().enumerate() {
            for b in &OPTIONS[i + 1..] {
                assert!(!a.name.eq_ignore_ascii_case(b.name), "{} twice", a.name);
            }
        }
    }

    #[test]
    fn every_option_reads_back_what_is_set_and_defaults_are_in_range() {
        for spec in OPTIONS {
            let default = spec.default_value();
            if let (Kind::Spin { min, max }, Value::Int(d)) = (&spec.kind, &default) {
                assert!((min..=max).contains(&d), "{}: default {d}", spec.name);
            }
            let other = match (&spec.kind, &default) {
                (Kind::Check, Value::Bool(b)) => Value::Bool(!b),
                (Kind::Spin { min, max }, Value::Int(d)) => {
                    Value::Int(if d == max { *min } else { d + 1 })
                }
                (Kind::Text, _) => Value::Text("x".into()),
                (Kind::Combo { choices }, Value::Text(d)) => {
                    Value::Text(choices.iter().find(|c| **c != d).unwrap().to_string())
                }
                (Kind::Button, _) => continue,
                (kind, v) => panic!("{}: {kind:?} with default {v:?}", spec.name),
            };
            let mut s = Settings::default();
            (spec.set)(&mut s, other.clone());
            assert_eq!((spec.get)(&s), other, "{}", spec.name);
            // ... and nothing else changed.
            for o in OPTIONS.iter().filter(|o| o.name != spec.name) {
                assert_eq!(
                    (o.get)(&s),
                    o.default_value(),
                    "setting {} changed {}",
                    spec.name,
                    o.name
                );
            }
        }
    }
}
