//! Everything the engine says goes through here: one line at a time to stdout, in one write, and
//! (when `Debug Log File` is set) appended to the transcript with a timestamp.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Clone, Default)]
pub struct Output {
    inner: Arc<Mutex<OutputState>>,
}

#[derive(Default)]
struct OutputState {
    log: Option<File>,
}

/// Opens a transcript file for appending: a regular file only, and never an open that blocks.
fn open_log(path: &str) -> std::io::Result<std::fs::File> {
    crate::util::files::open_regular(
        std::path::Path::new(path),
        OpenOptions::new().create(true).append(true),
    )
    .map_err(std::io::Error::other)
}

/// Writes a whole line to stdout in one write and without a lock: the answer's guard
/// (`engine/`) must get its `bestmove` out at once, even while the search thread holds the
/// stream, descheduled just as it wrote an info line (a write wakes the GUI's reader, which
/// may take the writer's core on the spot). Lines up to 4 KB (`PIPE_BUF`; an info line with
/// a full PV is under 1 KB) reach a pipe whole whichever threads write at once.
fn write_stdout(bytes: &[u8]) {
    #[cfg(unix)]
    {
        // A second handle on the same open stdout, written without Rust's buffer and lock.
        static RAW: std::sync::LazyLock<Option<File>> = std::sync::LazyLock::new(|| {
            use std::os::fd::AsFd;
            let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
            Some(File::from(fd))
        });
        if let Some(mut file) = RAW.as_ref() {
            // A closed stdout (the GUI went away) is not worth dying for; the read side
            // ends us.
            let _ = file.write_all(bytes);
            return;
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = out.write_all(bytes);
    let _ = out.flush();
}

fn timestamp() -> String {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format!("{}.{:03}", t.as_secs(), t.subsec_millis())
}

impl Output {
    /// Sends one protocol line to the GUI.
    pub fn line(&self, text: &str) {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        write_stdout(&bytes);
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = state.log.as_mut() {
            let _ = writeln!(f, "{} >> {text}", timestamp());
        }
    }

    /// `info string …`
    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }

    /// Records a line received from the GUI in the transcript.
    pub fn log_input(&self, text: &str) {
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = state.log.as_mut() {
            let _ = writeln!(f, "{} << {text}", timestamp());
        }
    }

    /// Starts (or, with an empty path, stops) the transcript.
    pub fn set_log_file(&self, path: &str) -> std::io::Result<()> {
        let file = if path.is_empty() {
            None
        } else {
            Some(open_log(path)?)
        };
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).log = file;
        Ok(())
    }
}
