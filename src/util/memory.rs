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

/// What the process's cgroups still allow: the least, over its memory cgroup and each one
/// above it, of the limit minus what is used (page cache that could be dropped not counted)
/// — a limit may be set on a parent (a systemd slice), and inside a container without a
/// cgroup namespace the path named in /proc is not mounted, only the container's root is.
/// `None` without a limit or a readable cgroup.
fn cgroup_room() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let files = cgroup_memory_files(&membership, |mount| {
        std::fs::read_to_string(mount.join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|c| c == "memory"))
    })?;
    room_in_cgroups(&files)
}

fn room_in_cgroups(files: &CgroupMemoryFiles) -> Option<u64> {
    let mut dir = files.base.join(&files.path);
    let mut least: Option<u64> = None;
    loop {
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
        let limit = read(files.limit).and_then(|v| v.trim().parse::<u64>().ok()); // "max": none
        let usage = read(files.usage).and_then(|v| v.trim().parse::<u64>().ok());
        if let (Some(limit), Some(usage)) = (limit, usage) {
            let cache = read("memory.stat").map_or(0, |stat| {
                stat.lines()
                    .find_map(|l| l.strip_prefix(files.inactive_cache))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0)
            });
            let room = limit.saturating_sub(usage.saturating_sub(cache));
            least = Some(least.map_or(room, |l| l.min(room)));
        }
        if dir == files.base || !dir.pop() {
            return least;
        }
    }
}

/// Where a cgroup's memory figures are, by version.
#[derive(Debug, PartialEq)]
struct CgroupMemoryFiles {
    /// The hierarchy's mount point.
    base: std::path::PathBuf,
    /// The process's cgroup below it.
    path: std::path::PathBuf,
    limit: &'static str,
    usage: &'static str,
    /// The `memory.stat` line (with its blank) of page cache not recently used.
    inactive_cache: &'static str,
}

/// The process's memory cgroup from `/proc/self/cgroup`: v1's memory controller
/// (`4:memory:/path`), else v2's unified hierarchy (`0::/path`) when `has_v2_memory` says its
/// mount point has the memory controller.
fn cgroup_memory_files(
    membership: &str,
    has_v2_memory: impl Fn(&std::path::Path) -> bool,
) -> Option<CgroupMemoryFiles> {
    let entries = membership.lines().filter_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        Some((controllers, path.trim_start_matches('/')))
    });
    let mut unified = None;
    for (controllers, path) in entries {
        if controllers.split(',').any(|c| c == "memory") {
            return Some(CgroupMemoryFiles {
                base: "/sys/fs/cgroup/memory".into(),
                path: path.into(),
                limit: "memory.limit_in_bytes", // unlimited: a huge number
                usage: "memory.usage_in_bytes",
                inactive_cache: "total_inactive_file ",
            });
        }
        if controllers.is_empty() {
            unified = Some(path);
        }
    }
    let base = std::path::Path::new("/sys/fs/cgroup");
    let path = unified.filter(|_| has_v2_memory(base))?;
    Some(CgroupMemoryFiles {
        base: base.into(),
        path: path.into(),
        limit: "memory.max",
        usage: "memory.current",
        inactive_cache: "inactive_file ",
    })
}

/// Makes every thread allocate from one heap (glibc; elsewhere nothing). By default glibc
/// gives each new thread that allocates a heap of its own, reserving 64 MiB of address space
/// for it: under an address-space limit (`ulimit -v`) a few helper threads took it all, and
/// a thread that then found no heap aborted the engine on a 256-byte allocation, whatever
/// was checked before. The search allocates nothing in its hot path, so one heap's lock
/// costs nothing measurable. Called first thing in `main`, before any thread starts.
pub fn one_heap_for_all_threads() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets an allocator parameter; called before other threads
        // exist. A failure (0) leaves glibc's default, which is only less frugal.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

/// Asks the kernel to back `memory` with 2 MiB pages where it can (Linux with transparent huge
/// pages in `madvise` or `always` mode; elsewhere nothing). Only the whole 2 MiB blocks inside
/// it are advised, so it need not be aligned. Called before the memory is first written (on a
/// vector's reserved capacity, `spare_capacity_mut`), so the pages are huge from their first
/// fault. For the hash table, whose probes miss the cache and, with 4 KiB pages, the TLB at
/// nearly every node (bench nps 1.047×, `bench 15` 1.026×).
pub fn advise_huge_pages<T>(memory: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = memory.as_ptr() as usize;
        let begin = start.next_multiple_of(HUGE);
        let end = (start + std::mem::size_of_val(memory)) / HUGE * HUGE;
        if end > begin {
            // SAFETY: the advised blocks lie inside `memory`, which the caller borrows;
            // MADV_HUGEPAGE changes only how the kernel backs those pages, never their
            // contents or the mapping's rights. A failure (a kernel without transparent huge
            // pages) leaves 4 KiB pages, which are only slower.
            unsafe {
                libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

/// Whether `bytes` more could be mapped now, by the allocator or for a thread's stack: this is
/// how allocations that cannot fail (a thread's data, its stack) are made safe where the
/// limit is not the machine's memory but the process's address space (`ulimit -v`, which
/// `available_bytes` does not see) — the caller asks first, for all of them at once.
pub fn can_allocate(bytes: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        // The kernel is asked directly: a probe through the allocator was measured to
        // mislead (glibc keeps a freed block in its heap after raising its mmap threshold, so
        // a later probe proved room in the heap that a thread's stack could not use, and the
        // stack's mapping failed after the probe had passed).
        // SAFETY: a fresh anonymous private mapping, never touched and unmapped at once; it
        // aliases nothing. Writable, so that a strict overcommit policy counts it too.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                return false;
            }
            libc::munmap(p, bytes);
        }
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        let mut probe: Vec<u8> = Vec::new();
        let fits = probe.try_reserve_exact(bytes).is_ok();
        // Kept opaque, so that the allocation is not optimised away with its free.
        std::hint::black_box(&mut probe);
        fits
    }
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
        }
    }

    #[test]
    fn the_memory_cgroup_is_found_in_either_version() {
        use std::path::Path;
        // cgroup v1 (a hybrid system lists the unified hierarchy too): the memory controller.
        let v1 = "5:devices:/\n4:memory:/box/7\n1:cpu:/\n0::/\n";
        let files = super::cgroup_memory_files(v1, |_| true).unwrap();
        assert_eq!(files.base, Path::new("/sys/fs/cgroup/memory"));
        assert_eq!(files.path, Path::new("box/7"));
        assert_eq!(files.limit, "memory.limit_in_bytes");
        // cgroup v2 only: the unified hierarchy, where it has memory files.
        let v2 = "0::/user.slice/engine.scope\n";
        let files = super::cgroup_memory_files(v2, |_| true).unwrap();
        assert_eq!(files.base, Path::new("/sys/fs/cgroup"));
        assert_eq!(files.path, Path::new("user.slice/engine.scope"));
        assert_eq!(files.limit, "memory.max");
        assert!(super::cgroup_memory_files(v2, |_| false).is_none());
        assert!(super::cgroup_memory_files("", |_| true).is_none());
    }

    #[test]
    fn the_least_room_over_the_cgroup_and_its_parents_counts() {
        let base = std::env::temp_dir().join(format!("brudno-cgroup-{}", std::process::id()));
        let leaf = base.join("slice/engine");
        std::fs::create_dir_all(&leaf).unwrap();
        let write = |dir: &std::path::Path, max: &str, current: u64, inactive: u64| {
            std::fs::write(dir.join("memory.max"), format!("{max}\n")).unwrap();
            std::fs::write(dir.join("memory.current"), format!("{current}\n")).unwrap();
            let stat = format!("anon 5\ninactive_file {inactive}\nactive_file 9\n");
            std::fs::write(dir.join("memory.stat"), stat).unwrap();
        };
        write(&base, "max", 900, 0); // the root: no limit
        write(&base.join("slice"), "1000", 700, 200); // 1000 − (700 − 200) = 500
        write(&leaf, "max", 400, 0);
        let files = super::CgroupMemoryFiles {
            base: base.clone(),
            path: "slice/engine".into(),
            limit: "memory.max",
            usage: "memory.current",
            inactive_cache: "inactive_file ",
        };
        assert_eq!(super::room_in_cgroups(&files), Some(500));
        // The path named in /proc not mounted (a container without a cgroup namespace): the
        // mount point's own figures still count.
        write(&base, "300", 100, 0);
        let unmounted = super::CgroupMemoryFiles {
            path: "docker/0123".into(),
            ..files
        };
        assert_eq!(super::room_in_cgroups(&unmounted), Some(200));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
