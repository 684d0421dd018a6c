//! Fault injection for the robustness and time-safety tests: environment variables, read
//! once and never set in play, that make the search panic or stall.

use std::time::Duration;

/// Fault injection for the robustness tests: the main search panics after this many nodes
/// (`BRUDNO_FAULT_PANIC_AFTER_NODES`, read once; never set in play).
pub(super) fn fault_injection() -> u64 {
    static AFTER: std::sync::LazyLock<u64> = std::sync::LazyLock::new(|| {
        std::env::var("BRUDNO_FAULT_PANIC_AFTER_NODES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX)
    });
    *AFTER
}

/// Fault injection for the time-safety tests, each read once from its environment variable
/// (never set in play): the search thread stalls this long, as if it had lost its core.
#[derive(Clone, Copy)]
pub(crate) enum Fault {
    /// At its hard limit, before it ends (`BRUDNO_FAULT_STALL_AT_DEADLINE_MS`).
    StallAtDeadline,
    /// Before the search begins (`BRUDNO_FAULT_STALL_AT_START_MS`).
    StallAtStart,
}

/// How long `fault` stalls the search thread (zero in play).
pub(crate) fn fault_stall_ms(fault: Fault) -> Duration {
    fn read(name: &str) -> Duration {
        Duration::from_millis(
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
        )
    }
    static AT_DEADLINE: std::sync::LazyLock<Duration> =
        std::sync::LazyLock::new(|| read("BRUDNO_FAULT_STALL_AT_DEADLINE_MS"));
    static AT_START: std::sync::LazyLock<Duration> =
        std::sync::LazyLock::new(|| read("BRUDNO_FAULT_STALL_AT_START_MS"));
    match fault {
        Fault::StallAtDeadline => *AT_DEADLINE,
        Fault::StallAtStart => *AT_START,
    }
}

/// Stalls the calling thread as `fault` asks (not at all in play).
pub(crate) fn fault_stall(fault: Fault) {
    let stall = fault_stall_ms(fault);
    if !stall.is_zero() {
        std::thread::sleep(stall);
    }
}
