//! Records the commit the engine is built from (`BRUDNO_COMMIT`), for `--version` and for the
//! header of generated training data. Builds outside a git checkout simply have none.

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/index");
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
