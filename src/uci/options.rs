//! The UCI options registry: one table of name, type, default and range. Names match
//! case-insensitively; values are checked here, and applied by the protocol layer.

#[derive(Clone, Debug, PartialEq)]
pub enum OptionKind {
    Check {
        default: bool,
    },
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Combo {
        default: &'static str,
        choices: &'static [&'static str],
    },
    Button,
    Text {
        default: &'static str,
    },
}

#[derive(Clone, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    /// One line for `help` and protocol.md.
    pub help: &'static str,
}

/// A checked option value.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Text(String),
    Pressed,
}

pub const MAX_HASH_MB: i64 = 65536;

pub fn registry() -> Vec<OptionSpec> {
    use OptionKind::*;
    let mut specs = vec![
        OptionSpec {
            name: "Hash",
            kind: Spin {
                default: 16,
                min: 1,
                max: MAX_HASH_MB,
            },
            help: "transposition table size in MiB",
        },
        OptionSpec {
            name: "Threads",
            kind: Spin {
                default: 1,
                min: 1,
                max: 1024,
            },
            help: "search threads (Lazy SMP: helpers share the hash table)",
        },
        OptionSpec {
            name: "Clear Hash",
            kind: Button,
            help: "empty the transposition table and histories",
        },
        OptionSpec {
            name: "Move Overhead",
            kind: Spin {
                default: 10,
                min: 0,
                max: 5000,
            },
            help: "milliseconds kept in reserve per move for GUI and network lag",
        },
        OptionSpec {
            name: "Ponder",
            kind: Check { default: false },
            help: "the GUI may send go ponder (tells the engine to plan for it)",
        },
        OptionSpec {
            name: "MultiPV",
            kind: Spin {
                default: 1,
                min: 1,
                max: 256,
            },
            help: "number of best lines to report",
        },
        OptionSpec {
            name: "OwnBook",
            kind: Check { default: true },
            help: "play moves from the opening book",
        },
        OptionSpec {
            name: "BookFile",
            kind: Text { default: "" },
            help: "Polyglot book file; empty = the embedded book",
        },
        OptionSpec {
            name: "UCI_Chess960",
            kind: Check { default: false },
            help: "Chess960: castling is written king-takes-rook (e1h1)",
        },
        OptionSpec {
            name: "UCI_LimitStrength",
            kind: Check { default: false },
            help: "play weaker, at about UCI_Elo (a node budget and a choice among the best lines)",
        },
        OptionSpec {
            name: "UCI_Elo",
            kind: Spin {
                default: 1500,
                min: crate::search::strength::MIN_ELO as i64,
                max: crate::search::strength::MAX_ELO as i64,
            },
            help: "the rating UCI_LimitStrength plays at",
        },
        OptionSpec {
            name: "UCI_ShowWDL",
            kind: Check { default: false },
            help: "add 'wdl W D L' (per mille) to info lines",
        },
        OptionSpec {
            name: "Debug Log File",
            kind: Text { default: "" },
            help: "append the full I/O transcript, with timestamps, to this file",
        },
    ];
    specs.extend([
        OptionSpec {
            name: "BookDepth",
            kind: Spin {
                default: 32,
                min: 0,
                max: 1000,
            },
            help: "use the book only before this game ply (half-move)",
        },
        OptionSpec {
            name: "BookBestMove",
            kind: Check { default: false },
            help: "always play the book's highest-weight move (false: at random by weight)",
        },
        OptionSpec {
            name: "SyzygyPath",
            kind: Text { default: "" },
            help: "folders with Syzygy tables, separated by ':' or ';'",
        },
        OptionSpec {
            name: "SyzygyProbeDepth",
            kind: Spin {
                default: 1,
                min: 1,
                max: 100,
            },
            help: "minimum remaining depth for tablebase probes in the search",
        },
        OptionSpec {
            name: "SyzygyProbeLimit",
            kind: Spin {
                default: 7,
                min: 0,
                max: 7,
            },
            help: "probe only positions with at most this many pieces",
        },
        OptionSpec {
            name: "Syzygy50MoveRule",
            kind: Check { default: true },
            help: "count wins that the 50-move rule spoils as draws",
        },
    ]);
    specs.extend(
        SEARCH_SWITCHES
            .iter()
            .map(|&(name, default, help)| OptionSpec {
                name,
                kind: Check { default },
                help,
            }),
    );
    specs.push(OptionSpec {
        name: "SecondaryDepth",
        kind: Spin {
            default: 2,
            min: 0,
            max: 8,
        },
        help: "extra plies of the secondary search",
    });
    specs
}

/// The lecture's improvements, each a check option: name, default, help
/// (README, "What each method is worth"). The defaults follow measurement.
pub const SEARCH_SWITCHES: [(&str, bool, &str); 10] = [
    (
        "ForwardPruning",
        true,
        "master switch: off disables all the forward-pruning methods below",
    ),
    (
        "NullMovePruning",
        true,
        "null-move pruning (zugzwang guard, verification at high depth)",
    ),
    (
        "LateMoveReductions",
        true,
        "late-move reductions with re-search",
    ),
    (
        "FutilityPruning",
        true,
        "reverse futility and futility pruning; delta pruning in quiescence",
    ),
    (
        "LateMovePruning",
        true,
        "skip late quiet moves at low depth",
    ),
    (
        "SeePruning",
        true,
        "prune moves that lose material by static exchange",
    ),
    (
        "Quiescence",
        true,
        "search captures until quiet at the horizon (off: static evaluation)",
    ),
    (
        "CheckExtension",
        true,
        "search one ply deeper when in check",
    ),
    (
        "SingularExtensions",
        true,
        "extend a TT move that is much better than every other",
    ),
    (
        "SecondarySearch",
        false,
        "verify the chosen move deeper before playing it; keep searching if it fails",
    ),
];

/// Finds an option by name, ignoring case.
pub fn find<'a>(specs: &'a [OptionSpec], name: &str) -> Option<&'a OptionSpec> {
    specs
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
}

impl OptionSpec {
    /// Checks a value given with `setoption` against this option's type and range.
    pub fn check(&self, value: Option<&str>) -> Result<OptionValue, String> {
        let value = value.map(str::trim);
        match &self.kind {
            OptionKind::Button => Ok(OptionValue::Pressed),
            OptionKind::Check { .. } => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => Ok(OptionValue::Bool(true)),
                Some("false") => Ok(OptionValue::Bool(false)),
                Some(v) => Err(format!(
                    "option {} takes true or false, not '{v}'",
                    self.name
                )),
                None => Err(format!(
                    "option {} needs a value (true or false)",
                    self.name
                )),
            },
            OptionKind::Spin { min, max, .. } => {
                let Some(v) = value else {
                    return Err(format!(
                        "option {} needs a value ({min} to {max})",
                        self.name
                    ));
                };
                match v.parse::<i64>() {
                    Ok(n) if (*min..=*max).contains(&n) => Ok(OptionValue::Int(n)),
                    Ok(n) => Err(format!(
                        "option {} must be between {min} and {max}, not {n}",
                        self.name
                    )),
                    Err(_) => Err(format!(
                        "option {} takes a whole number, not '{v}'",
                        self.name
                    )),
                }
            }
            OptionKind::Combo { choices, .. } => {
                let v = value.unwrap_or("");
                choices
                    .iter()
                    .find(|c| c.eq_ignore_ascii_case(v))
                    .map(|c| OptionValue::Text(c.to_string()))
                    .ok_or_else(|| {
                        format!(
                            "option {} takes one of {}, not '{v}'",
                            self.name,
                            choices.join(", ")
                        )
                    })
            }
            OptionKind::Text { .. } => {
                // `<empty>` is how some GUIs send an empty string.
                let v = value.unwrap_or("");
                Ok(OptionValue::Text(if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                }))
            }
        }
    }

    /// The `option name … type …` line sent in answer to `uci`.
    pub fn uci_line(&self) -> String {
        match &self.kind {
            OptionKind::Check { default } => {
                format!("option name {} type check default {default}", self.name)
            }
            OptionKind::Spin { default, min, max } => {
                format!(
                    "option name {} type spin default {default} min {min} max {max}",
                    self.name
                )
            }
            OptionKind::Combo { default, choices } => {
                let vars: String = choices.iter().map(|c| format!(" var {c}")).collect();
                format!(
                    "option name {} type combo default {default}{vars}",
                    self.name
                )
            }
            OptionKind::Button => format!("option name {} type button", self.name),
            OptionKind::Text { default } => format!(
                "option name {} type string default {}",
                self.name,
                if default.is_empty() {
                    "<empty>"
                } else {
                    default
                }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked() {
        let specs = registry();
        let hash = find(&specs, "hash").unwrap();
        assert_eq!(hash.check(Some("64")), Ok(OptionValue::Int(64)));
        assert!(hash.check(Some("0")).is_err());
        assert!(hash.check(Some("lots")).is_err());
        assert!(hash.check(None).is_err());
        let ponder = find(&specs, "PONDER").unwrap();
        assert_eq!(ponder.check(Some("True")), Ok(OptionValue::Bool(true)));
        assert!(ponder.check(Some("yes")).is_err());
        assert!(find(&specs, "move overhead").is_some());
        assert!(find(&specs, "No Such Option").is_none());
        let book = find(&specs, "BookFile").unwrap();
        assert_eq!(
            book.check(Some("<empty>")),
            Ok(OptionValue::Text(String::new()))
        );
    }

    #[test]
    fn names_are_unique() {
        let specs = registry();
        for (i, a) in specs.iter().enumerate() {
            for b in &specs[i + 1..] {
                assert!(!a.name.eq_ignore_ascii_case(b.name), "{} twice", a.name);
            }
        }
    }
}
