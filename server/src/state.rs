//! The state folder (`--state-dir`): what a server keeps so that a restart changes nothing a
//! client was told. A server that makes its own self-signed certificate or its own random
//! token secret keeps them here and uses them again on its next start, so the fingerprint
//! players pinned and the tokens they hold stay good. Each file is written whole to a
//! temporary file, flushed to disk, then renamed into place ([`write_atomically`]): a server
//! killed while writing leaves the old file or the new one.

use crate::tls::Identity;
use anyhow::{Context, Result};
use cohort_protocol::file::{read_limited, FileLimit};
use std::io::Write;
use std::path::Path;

/// The self-signed certificate's file in the state folder (PEM).
pub const CERT_FILE: &str = "cert.pem";

/// Its private key's file (PEM, readable by the owner only).
pub const KEY_FILE: &str = "key.pem";

/// The random token secret's file (32 bytes, readable by the owner only).
pub const SECRET_FILE: &str = "secret";

/// The largest certificate or key file read from the state folder, in bytes.
pub const MAX_STATE_FILE_BYTES: usize = 64 << 10;

const STATE_FILE: FileLimit = FileLimit {
    bytes: MAX_STATE_FILE_BYTES,
    what: "state folder file",
    name: "MAX_STATE_FILE_BYTES",
};

/// The self-signed identity kept in `dir`, made (and kept) on the first start.
pub fn self_signed_identity(dir: &Path) -> Result<Identity> {
    let (cert, key) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
    if cert.exists() || key.exists() {
        read_limited(&cert, STATE_FILE)?;
        read_limited(&key, STATE_FILE)?;
        let mut id = Identity::from_files(&cert, &key)
            .with_context(|| format!("the certificate kept in {}", dir.display()))?;
        id.self_signed = true;
        return Ok(id);
    }
    let (id, cert_pem, key_pem) = Identity::self_signed_pem()?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_atomically(&key, key_pem.as_bytes(), true)?;
    write_atomically(&cert, cert_pem.as_bytes(), false)?;
    tracing::info!(dir = %dir.display(), "self-signed certificate made and kept");
    Ok(id)
}

/// The random token secret kept in `dir`, made (and kept) on the first start.
pub fn secret(dir: &Path, make: impl FnOnce() -> Result<Vec<u8>>) -> Result<Vec<u8>> {
    let path = dir.join(SECRET_FILE);
    if path.exists() {
        let bytes = read_limited(&path, STATE_FILE)?;
        anyhow::ensure!(!bytes.is_empty(), "{} is empty", path.display());
        return Ok(bytes);
    }
    let bytes = make()?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_atomically(&path, &bytes, true)?;
    Ok(bytes)
}

/// Writes `bytes` to `path` so that a crash at any moment leaves the old file or the new one:
/// a temporary file beside it, flushed to disk (fsync), renamed over `path`, and the folder
/// flushed so that the rename itself survives a power cut. `private`: readable by the owner
/// only.
pub fn write_atomically(path: &Path, bytes: &[u8], private: bool) -> Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options
        .open(&tmp)
        .with_context(|| format!("writing {}", tmp.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    drop(file);
    std::fs::rename(&tmp, path).with_context(|| format!("renaming {}", tmp.display()))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // A folder opened read-only can be flushed on Unix; elsewhere this is best effort.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("cohort-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn the_certificate_and_the_secret_are_made_once_and_kept() {
        let d = dir("keep");
        let a = self_signed_identity(&d).unwrap();
        let b = self_signed_identity(&d).unwrap();
        assert_eq!(a.fingerprint, b.fingerprint);
        assert!(b.self_signed);
        let s = secret(&d, || Ok(vec![1, 2, 3])).unwrap();
        let t = secret(&d, || Ok(vec![9])).unwrap();
        assert_eq!((s, t), (vec![1, 2, 3], vec![1, 2, 3]));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(d.join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "the key is the owner's only");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary_file() {
        let d = dir("atomic");
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("f");
        write_atomically(&p, b"one", false).unwrap();
        write_atomically(&p, b"two", false).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }
}
