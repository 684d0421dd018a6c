//! Opening the tools' input files: plain text or gzip, told apart by the gzip magic bytes (not
//! the name), so that every reader takes both without a child process.

use anyhow::{Context, Result};
use flate2::bufread::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// A buffered reader of the file's text, decompressed if it is gzip (several concatenated
/// members too, as `gzip -dc` reads them).
pub fn open(path: impl AsRef<Path>) -> Result<Box<dyn BufRead + Send>> {
    let path = path.as_ref();
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut raw = BufReader::with_capacity(1 << 16, file);
    let head = raw
        .fill_buf()
        .with_context(|| format!("reading {}", path.display()))?;
    Ok(if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(1 << 16, MultiGzDecoder::new(raw)))
    } else {
        Box::new(raw)
    })
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
            open(path).unwrap().read_to_string(&mut got).unwrap();
            assert_eq!(got, text);
        }
        assert!(open(dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
