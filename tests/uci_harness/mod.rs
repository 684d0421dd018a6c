//! Drives the real `brudno` binary over pipes, the way a GUI does.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Gui {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line the engine sent, in order.
    pub transcript: Vec<String>,
}

impl Gui {
    pub fn start() -> Gui {
        Gui::start_with_env(&[])
    }

    /// Starts the engine with extra environment variables.
    pub fn start_with_env(vars: &[(&str, &str)]) -> Gui {
        let mut child = Command::new(env!("CARGO_BIN_EXE_brudno"))
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start brudno");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Gui {
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        self.send_raw(&format!("{line}\n"));
    }

    pub fn send_raw(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the engine's input (end of file).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line, or None after `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => {
                self.transcript.push(l.clone());
                Some(l)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first that starts with `prefix`; panics on timeout.
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        self.until_within(prefix, TIMEOUT).unwrap_or_else(|| {
            panic!(
                "no '{prefix}' within {TIMEOUT:?}; transcript: {:#?}",
                self.transcript
            )
        })
    }

    pub fn until_within(&mut self, prefix: &str, timeout: Duration) -> Option<Vec<String>> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.next_line(left)?;
            let done = line.starts_with(prefix);
            out.push(line);
            if done {
                return Some(out);
            }
        }
    }

    /// Sends `isready` and returns everything up to `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.until("readyok")
    }

    /// Lines that arrive within `wait` (for checking that nothing arrives).
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut out = Vec::new();
        while let Some(l) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            out.push(l);
        }
        out
    }

    /// Waits for the process to exit; true if it did within `timeout`.
    pub fn exits_within(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of the last `bestmove` line.
pub fn bestmove_of(lines: &[String]) -> String {
    let line = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("bestmove"))
        .expect("a bestmove line");
    line.split_whitespace().nth(1).unwrap().to_string()
}

/// Every line that starts with `prefix`.
pub fn count(lines: &[String], prefix: &str) -> usize {
    lines.iter().filter(|l| l.starts_with(prefix)).count()
}
