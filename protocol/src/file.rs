//! Reading files through a size limit. At most one byte more than the limit is ever read, so an
//! endless file (`/dev/zero`) or a huge one is refused at once instead of filling memory. Every
//! file Cohort reads goes through here with its named limit: replays and reports
//! ([`crate::limits`]), scenarios, maps and rulesets (cohort-sim), server configurations, secret
//! files and bot scripts (their crates).

use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// (`error` is told in the message, so it is not also a `source` told again after it.)
    #[error("cannot read {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{} is larger than {limit} bytes, the most a {what} may be ({name})", path.display())]
    TooLarge {
        path: PathBuf,
        limit: usize,
        /// What the file is (`replay`, `ruleset`…).
        what: &'static str,
        /// The limit's name.
        name: &'static str,
    },
}

/// A limit on a kind of file: its size in bytes, what the file is, the limit's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileLimit {
    pub bytes: usize,
    pub what: &'static str,
    pub name: &'static str,
}

/// The first `most` bytes of `path` (all of it when shorter): never more is read.
pub fn read_at_most(path: &Path, most: usize) -> Result<Vec<u8>, FileError> {
    let io = |error| FileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    let most = u64::try_from(most).unwrap_or(u64::MAX);
    file.take(most).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// The whole of `path`, refused when it is larger than `limit` allows: a regular file by its
/// size before anything is read, anything else (a device, a pipe) after one byte too many.
pub fn read_limited(path: &Path, limit: FileLimit) -> Result<Vec<u8>, FileError> {
    let too_large = || FileError::TooLarge {
        path: path.to_path_buf(),
        limit: limit.bytes,
        what: limit.what,
        name: limit.name,
    };
    let size = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if size.is_some_and(|s| u64::try_from(limit.bytes).is_ok_and(|l| s > l)) {
        return Err(too_large());
    }
    let bytes = read_at_most(path, limit.bytes.saturating_add(1))?;
    if bytes.len() > limit.bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: FileLimit = FileLimit {
        bytes: 16,
        what: "test file",
        name: "TINY",
    };

    #[test]
    fn an_endless_file_is_refused_after_reading_one_byte_over() {
        let e = read_limited(Path::new("/dev/zero"), TINY).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero is larger than 16 bytes, the most a test file may be (TINY)"
        );
        assert_eq!(read_at_most(Path::new("/dev/zero"), 5).unwrap(), vec![0; 5]);
    }

    #[test]
    fn a_file_within_its_limit_is_read_whole() {
        let path = std::env::temp_dir().join(format!("cohort-file-{}", std::process::id()));
        std::fs::write(&path, [7u8; 16]).unwrap();
        assert_eq!(read_limited(&path, TINY).unwrap(), vec![7; 16]);
        std::fs::write(&path, [7u8; 17]).unwrap();
        assert!(matches!(
            read_limited(&path, TINY),
            Err(FileError::TooLarge { limit: 16, .. })
        ));
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(
            read_limited(&path, TINY),
            Err(FileError::Io { .. })
        ));
    }
}
