//! Reading a file a user named, safely: only a regular file, only up to a size that fits what
//! it should hold, so that a device (`/dev/zero`), a FIFO or a huge file is a clear error at
//! once rather than a read that never ends or fills memory.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

/// Why a path that exists is not a regular file, or `None` when it is one.
pub fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    if meta.is_file() {
        None
    } else if meta.is_dir() {
        Some("it is a folder, not a file")
    } else {
        Some("not a regular file (a device, a FIFO or a socket)")
    }
}

/// Opens `path` with `options` only if it is a regular file. The open itself never blocks (a
/// FIFO without a partner would: on Unix it is opened non-blocking) and the type is checked
/// again on the file opened, so something else put at the path after the first look is
/// refused too.
pub fn open_regular(path: &Path, options: &mut OpenOptions) -> Result<File, String> {
    if let Some(why) = std::fs::metadata(path).ok().as_ref().and_then(not_regular) {
        return Err(why.into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    match not_regular(&meta) {
        Some(why) => Err(why.into()),
        None => Ok(file),
    }
}

/// The contents of `path`, which must be a regular file of at most `max_bytes` bytes.
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if let Some(why) = not_regular(&meta) {
        return Err(why.into());
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "{} bytes, more than the {max_bytes} such a file can have",
            meta.len()
        ));
    }
    let file = open_regular(path, OpenOptions::new().read(true))?;
    // The size may change between the check and the read: never read past the bound. The
    // buffer is asked for, not assumed: a failed allocation is an error, not an abort.
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(meta.len() as usize)
        .map_err(|_| format!("{} bytes of memory could not be had", meta.len()))?;
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("grew past {max_bytes} bytes while being read"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_devices_and_big_files_are_refused() {
        let dir = std::env::temp_dir();
        assert!(read_bounded(&dir, 100).unwrap_err().contains("folder"));
        if Path::new("/dev/zero").exists() {
            assert!(read_bounded(Path::new("/dev/zero"), 100)
                .unwrap_err()
                .contains("not a regular file"));
        }
        let f = dir.join(format!("brudno-files-test-{}", std::process::id()));
        std::fs::write(&f, [7u8; 10]).unwrap();
        assert_eq!(read_bounded(&f, 10).unwrap(), vec![7u8; 10]);
        assert!(read_bounded(&f, 9).unwrap_err().contains("more than"));
        std::fs::remove_file(&f).unwrap();
        assert!(read_bounded(&f, 9).is_err());
    }
}
