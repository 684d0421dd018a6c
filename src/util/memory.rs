//! The process's memory, as the operating system sees it: how much could still be had (so
//! that a `Hash` the machine cannot hold is refused before it is touched, rather than killing
//! the engine), and giving freed memory back.

/// Bytes that could still be allocated without swapping, where known: the kernel's
/// `MemAvailable`, and less inside a container whose cgroup has a memory limit (there the
/// limit, not the machine, is what the out-of-memory killer enforces).
///
/// The robustness tests pretend to a small machine with `BRUDNO_FAULT_AVAILABLE_MIB`
/// (never set in play).
pub fn available_bytes() -> Option<u64> {
    if let Some(mib) = std::env::var("BRUDNO_FAULT_AVAILABLE_MIB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        return Some(mib << 20);
    }
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    let machine = kib * 1024;
    Some(cgroup_room().map_or(machine, |room| room.min(machine)))
}

/// What the process's cgroup still allows — limit minus usage — or `None` without a limit
/// or a readable cgroup. cgroup v2 (`memory.max`, "max" when unlimited) and v1 (the memory
/// controller's `memory.limit_in_bytes`, a huge number when unlimited).
fn cgroup_room() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let (dir, limit, usage) = membership.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "memory") {
            let dir = std::path::Path::new("/sys/fs/cgroup/memory").join(path);
            Some((dir, "memory.limit_in_bytes", "memory.usage_in_bytes"))
        } else if controllers.is_empty() {
            let dir = std::path::Path::new("/sys/fs/cgroup").join(path);
            dir.join("memory.max")
                .exists()
                .then_some((dir, "memory.max", "memory.current"))
        } else {
            None
        }
    })?;
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some(read(limit)?.saturating_sub(read(usage)?))
}

/// Hands memory freed by an old hash table back to the operating system. glibc keeps a freed
/// block of up to 32 MiB in its heap after raising its mmap threshold, so without this a
/// GUI that changes `Hash` a few times leaves the engine holding the old tables' memory
/// (measured: 42 MB resident at Hash 16 after 42 resizes; 25.5 MB with this call, against
/// 22.6 MB for a fresh engine).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim only returns free memory to the system; it has no
        // preconditions and is thread-safe (glibc takes its arena locks).
        unsafe {
            malloc_trim(0);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn available_memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let bytes = super::available_bytes().expect("/proc/meminfo has MemAvailable");
            assert!(bytes > 1 << 20);
            // A cgroup, where there is one, may only lower what the machine offers.
            if let Some(room) = super::cgroup_room() {
                assert!(room > 1 << 20, "{room}");
            }
        }
    }
}
