//! The subcommands' command lines, read with lexopt as `brudno datagen` reads its own.
//!
//! Each subcommand parses into `Parsed`: `--help` is an answer (printed, exit code 0), not an
//! error. A command line that cannot run is a `UsageError` whose message names the option;
//! `main` prints it in one line with a pointer to the subcommand's `--help` and exits with
//! code 2, apart from the failures of the work itself (code 1).

use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::str::FromStr;

/// What a command line asks for.
#[derive(Debug, PartialEq)]
pub enum Parsed<T> {
    Run(T),
    Help,
}

impl<T> Parsed<T> {
    /// The settings of a run; `None` for `--help`.
    pub fn run(self) -> Option<T> {
        match self {
            Parsed::Run(t) => Some(t),
            Parsed::Help => None,
        }
    }
}

/// A command line the tool cannot run; the message names the option at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The result of reading a command line.
pub type Result<T> = std::result::Result<T, UsageError>;

/// `Err(UsageError)` with a formatted message.
#[macro_export]
macro_rules! usage_error {
    ($($t:tt)*) => {
        Err($crate::cli::UsageError(format!($($t)*)))
    };
}

/// One argument: `--help`/`-h`, an option's name (without its dashes), or a positional
/// argument.
#[derive(Debug, PartialEq)]
pub enum Arg {
    Help,
    Option(String),
    Positional(String),
}

/// A value type with the words for a value that does not parse.
pub trait Number: FromStr + Copy + fmt::Display + PartialOrd {
    /// What the value should have been: "a whole number", "a number".
    const WHAT: &'static str;
    /// Whether a parsed value is usable (floats: finite; `inf` and `nan` parse but mean nothing
    /// here).
    fn usable(self) -> bool {
        true
    }
}

macro_rules! whole {
    ($($t:ty),*) => {$(
        impl Number for $t {
            const WHAT: &'static str = "a whole number";
        }
    )*};
}
whole!(u16, u32, u64, usize);

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Number for $t {
            const WHAT: &'static str = "a number";
            fn usable(self) -> bool {
                self.is_finite()
            }
        }
    )*};
}
real!(f32, f64);

/// The arguments after a subcommand's name.
pub struct Args {
    parser: lexopt::Parser,
}

impl Args {
    pub fn new(args: &[String]) -> Args {
        Args {
            parser: lexopt::Parser::from_args(args),
        }
    }

    /// The next argument; `None` at the end.
    pub fn next_arg(&mut self) -> Result<Option<Arg>> {
        use lexopt::Arg::{Long, Short, Value};
        match self.parser.next() {
            Ok(None) => Ok(None),
            Ok(Some(Short('h') | Long("help"))) => Ok(Some(Arg::Help)),
            Ok(Some(Long(name))) => Ok(Some(Arg::Option(name.to_string()))),
            Ok(Some(Short(c))) => usage_error!("unknown option -{c}"),
            Ok(Some(Value(v))) => match v.into_string() {
                Ok(v) => Ok(Some(Arg::Positional(v))),
                Err(v) => usage_error!("argument {v:?} is not text"),
            },
            Err(e) => usage_error!("{e}"),
        }
    }

    /// Reads the rest of a command line that takes options only: each option's name goes to
    /// `each`, which reads its value; `--help` answers `Help` at once, and a positional
    /// argument is an error.
    pub fn each_option(
        &mut self,
        mut each: impl FnMut(&str, &mut Args) -> Result<()>,
    ) -> Result<Parsed<()>> {
        while let Some(arg) = self.next_arg()? {
            match arg {
                Arg::Help => return Ok(Parsed::Help),
                Arg::Option(name) => each(&name, self)?,
                Arg::Positional(v) => return usage_error!("unexpected argument {v:?}"),
            }
        }
        Ok(Parsed::Run(()))
    }

    fn raw(&mut self, name: &str) -> Result<OsString> {
        self.parser
            .value()
            .map_err(|_| UsageError(format!("--{name} needs a value")))
    }

    /// Option `name`'s value, as text.
    pub fn text(&mut self, name: &str) -> Result<String> {
        self.raw(name)?
            .into_string()
            .map_err(|v| UsageError(format!("--{name} {v:?}: not text")))
    }

    /// Option `name`'s value, a path (any bytes the system allows).
    pub fn path(&mut self, name: &str) -> Result<PathBuf> {
        self.raw(name).map(PathBuf::from)
    }

    /// Option `name`'s value, a number.
    pub fn number<T: Number>(&mut self, name: &str) -> Result<T> {
        let text = self.text(name)?;
        match text.parse::<T>() {
            Ok(v) if v.usable() => Ok(v),
            _ => usage_error!("--{name} {text}: not {}", T::WHAT),
        }
    }

    /// Option `name`'s value, a number from `lo` to `hi`.
    pub fn number_in<T: Number>(&mut self, name: &str, lo: T, hi: T) -> Result<T> {
        let v = self.number(name)?;
        if v < lo || v > hi {
            return usage_error!("--{name} {v}: out of range ({lo} to {hi})");
        }
        Ok(v)
    }

    /// The values after option `name` up to the next option (at least one).
    pub fn values(&mut self, name: &str) -> Result<Vec<String>> {
        let values = self
            .parser
            .values()
            .map_err(|_| UsageError(format!("--{name} needs at least one value")))?;
        values
            .map(|v| {
                v.into_string()
                    .map_err(|v| UsageError(format!("--{name} {v:?}: not text")))
            })
            .collect()
    }
}

/// The error for an option the subcommand does not have.
pub fn unknown(name: &str) -> UsageError {
    UsageError(format!("unknown option --{name}"))
}

/// Prints a help text on stdout; a closed pipe (`| head`) is no failure of the help.
pub fn print_help(text: &str) {
    let _ = writeln!(std::io::stdout(), "{}", text.trim_end());
}

/// A command line split at spaces, for the tests.
#[cfg(test)]
pub fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Args {
        Args::new(&words(line))
    }

    #[test]
    fn arguments_and_values() {
        let mut a = args("--n 5 -h --x=0.5 pos --list a b --y");
        assert_eq!(a.next_arg(), Ok(Some(Arg::Option("n".into()))));
        assert_eq!(a.number::<u32>("n"), Ok(5));
        assert_eq!(a.next_arg(), Ok(Some(Arg::Help)));
        assert_eq!(a.next_arg(), Ok(Some(Arg::Option("x".into()))));
        assert_eq!(a.number::<f64>("x"), Ok(0.5));
        assert_eq!(a.next_arg(), Ok(Some(Arg::Positional("pos".into()))));
        assert_eq!(a.next_arg(), Ok(Some(Arg::Option("list".into()))));
        assert_eq!(a.values("list"), Ok(vec!["a".into(), "b".into()]));
        assert_eq!(a.next_arg(), Ok(Some(Arg::Option("y".into()))));
        assert_eq!(a.text("y"), Err(UsageError("--y needs a value".into())));
        assert_eq!(a.next_arg(), Ok(None));
    }

    #[test]
    fn bad_values_are_named() {
        let said = |line: &str, f: &dyn Fn(&mut Args) -> Result<()>| {
            let mut a = args(line);
            a.next_arg().unwrap();
            f(&mut a).unwrap_err().0
        };
        let n = |a: &mut Args| a.number::<u32>("n").map(drop);
        assert_eq!(said("--n x", &n), "--n x: not a whole number");
        assert_eq!(said("--n -3", &n), "--n -3: not a whole number");
        let x = |a: &mut Args| a.number::<f32>("x").map(drop);
        assert_eq!(said("--x nan", &x), "--x nan: not a number");
        assert_eq!(said("--x 1e99", &x), "--x 1e99: not a number");
        let r = |a: &mut Args| a.number_in::<u32>("t", 1, 8).map(drop);
        assert_eq!(said("--t 9", &r), "--t 9: out of range (1 to 8)");
        let l = |a: &mut Args| a.values("l").map(drop);
        assert_eq!(said("--l --m", &l), "--l needs at least one value");
        assert_eq!(
            args("-q").next_arg(),
            Err(UsageError("unknown option -q".into()))
        );
        let mut flag = args("--flag=1");
        flag.next_arg().unwrap();
        assert!(flag.next_arg().unwrap_err().0.contains("--flag"));
    }
}
