//! Records the commit the engine is built from (`BRUDNO_COMMIT`), for `--version` and for the
//! header of generated training data. Builds outside a git checkout simply have none.

fn main() {
    // Where HEAD and the index are (in a worktree they are not under .git/).
    for file in ["HEAD", "index"] {
        let path = std::process::Command::new("git")
            .args(["rev-parse", "--git-path", file])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok());
        if let Some(p) = path {
            println!("cargo:rerun-if-changed={}", p.trim());
        }
    }
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok());
    if let Some(c) = commit {
        let dirty = std::process::Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=no"])
            .output()
            .ok()
            .is_some_and(|o| !o.stdout.is_empty());
        let suffix = if dirty { "-modified" } else { "" };
        println!("cargo:rustc-env=BRUDNO_COMMIT={}{suffix}", c.trim());
    }
}
