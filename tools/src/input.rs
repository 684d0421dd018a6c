//! Opening the tools' input files: plain text or gzip, told apart by the gzip magic bytes (not
//! the name), so that every reader takes both without a child process.

use anyhow::{Context, Result};
use flate2::bufread::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// An input file being read, with how far: the bytes of the file (compressed ones, for gzip)
/// read so far out of its size, for a progress report.
pub struct Input {
    pub reader: Box<dyn BufRead + Send>,
    pub read: Arc<AtomicU64>,
    pub size: u64,
}

/// A buffered reader of the file's text, decompressed if it is gzip (several concatenated
/// members too, as `gzip -dc` reads them).
pub fn open(path: impl AsRef<Path>) -> Result<Box<dyn BufRead + Send>> {
    Ok(open_counted(path)?.reader)
}

/// `open`, with the count of the file's bytes read.
pub fn open_counted(path: impl AsRef<Path>) -> Result<Input> {
    let path = path.as_ref();
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let size = file.metadata().map_or(0, |m| m.len());
    let read = Arc::new(AtomicU64::new(0));
    let counted = Counted {
        inner: file,
        read: Arc::clone(&read),
    };
    let mut raw = BufReader::with_capacity(1 << 16, counted);
    let head = raw
        .fill_buf()
        .with_context(|| format!("reading {}", path.display()))?;
    let reader: Box<dyn BufRead + Send> = if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(1 << 16, MultiGzDecoder::new(raw)))
    } else {
        Box::new(raw)
    };
    Ok(Input { reader, read, size })
}

/// A reader that counts the bytes it reads.
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::{Read, Write};

    #[test]
    fn plain_and_gzip_read_the_same() {
        let dir = std::env::temp_dir().join(format!("brudno-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = "line one\nline two\n";
        let plain = dir.join("a.txt");
        std::fs::write(&plain, text).unwrap();
        // Two members, as `cat a.gz b.gz` makes.
        let mut zipped = Vec::new();
        for part in ["line one\n", "line two\n"] {
            let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(part.as_bytes()).unwrap();
            zipped.extend(enc.finish().unwrap());
        }
        let gz = dir.join("a.weird-name");
        std::fs::write(&gz, zipped).unwrap();
        for path in [&plain, &gz] {
            let mut got = String::new();
            let mut input = open_counted(path).unwrap();
            input.reader.read_to_string(&mut got).unwrap();
            assert_eq!(got, text);
            // Every byte of the file was read and counted, however it was compressed.
            let size = std::fs::metadata(path).unwrap().len();
            assert_eq!(
                (input.size, input.read.load(Ordering::Relaxed)),
                (size, size)
            );
        }
        assert!(open(dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
