//! Status codes, the thread's last error message, and [`guard`]: the one way every exported
//! function runs its body, so that no panic crosses the boundary.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a function did. `COHORT_STATUS_OK` is 0; every other value is an error whose message
/// [`cohort_last_error`] gives, on the same thread, until the next failing call.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortStatus {
    /// It worked.
    Ok = 0,
    /// A pointer the function needs was null.
    NullPointer = 1,
    /// The handle is 0, was freed, or is of another kind (a client where a world is wanted).
    InvalidHandle = 2,
    /// An argument is out of its range or not UTF-8 (the message says which).
    InvalidArgument = 3,
    /// Bytes did not decode as what the function expects (a message, a configuration, a
    /// snapshot).
    Decode = 4,
    /// Cohort will not do it: a configuration that cannot be played here, another ruleset, an
    /// order for a unit this player does not own, an order from a spectator.
    Refused = 5,
    /// The buffer is too small: nothing was written; `*count` or `*len` says how much is needed.
    BufferTooSmall = 6,
    /// No such entity, kind or player.
    NotFound = 7,
    /// Not yet: the client has not joined (no world, no orders).
    NotReady = 8,
    /// The client's match or connection is over.
    Closed = 9,
    /// The operating system refused (a thread, a socket, a file).
    System = 10,
    /// A bug inside Cohort (a panic, caught). The handle it happened on is unusable from now
    /// on (every call on it returns this); free it.
    Panic = 11,
}

/// Every status, in order (for [`cohort_status_name`] and tests).
pub const STATUSES: [CohortStatus; 12] = [
    CohortStatus::Ok,
    CohortStatus::NullPointer,
    CohortStatus::InvalidHandle,
    CohortStatus::InvalidArgument,
    CohortStatus::Decode,
    CohortStatus::Refused,
    CohortStatus::BufferTooSmall,
    CohortStatus::NotFound,
    CohortStatus::NotReady,
    CohortStatus::Closed,
    CohortStatus::System,
    CohortStatus::Panic,
];

impl CohortStatus {
    /// The status's name as the header spells it.
    pub fn name(self) -> &'static str {
        match self {
            CohortStatus::Ok => "COHORT_STATUS_OK",
            CohortStatus::NullPointer => "COHORT_STATUS_NULL_POINTER",
            CohortStatus::InvalidHandle => "COHORT_STATUS_INVALID_HANDLE",
            CohortStatus::InvalidArgument => "COHORT_STATUS_INVALID_ARGUMENT",
            CohortStatus::Decode => "COHORT_STATUS_DECODE",
            CohortStatus::Refused => "COHORT_STATUS_REFUSED",
            CohortStatus::BufferTooSmall => "COHORT_STATUS_BUFFER_TOO_SMALL",
            CohortStatus::NotFound => "COHORT_STATUS_NOT_FOUND",
            CohortStatus::NotReady => "COHORT_STATUS_NOT_READY",
            CohortStatus::Closed => "COHORT_STATUS_CLOSED",
            CohortStatus::System => "COHORT_STATUS_SYSTEM",
            CohortStatus::Panic => "COHORT_STATUS_PANIC",
        }
    }
}

/// A failed call: its status and the message for [`cohort_last_error`].
#[derive(Debug)]
pub struct Failure {
    pub status: CohortStatus,
    pub message: String,
}

impl Failure {
    pub fn new(status: CohortStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

/// A failure with `status` and a message.
pub fn fail<T>(status: CohortStatus, message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::new(status, message))
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn set_last_error(message: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.clear();
        e.push_str(message);
    });
}

/// Runs an exported function's body: a failure becomes its status with the message kept for
/// [`cohort_last_error`]; a panic becomes [`CohortStatus::Panic`] and never unwinds into the
/// caller.
pub fn guard(body: impl FnOnce() -> Result<(), Failure>) -> CohortStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CohortStatus::Ok,
        Ok(Err(f)) => {
            set_last_error(&f.message);
            f.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            set_last_error(&format!("a bug inside Cohort: {what}"));
            CohortStatus::Panic
        }
    }
}

/// Copies the message of the last failing call on this thread into `buf` (UTF-8, no
/// terminator) and returns its whole length in bytes. At most `cap` bytes are written (a longer
/// message is cut at a character boundary); with `buf` null or `cap` 0 nothing is written, so
/// `cohort_last_error(NULL, 0)` asks the length. An empty message (0) means no call on this
/// thread has failed yet.
///
/// Thread-safe: each thread has its own last error. The caller owns `buf`.
///
/// # Safety
/// `buf` must point to `cap` writable bytes, or be null.
#[no_mangle]
pub unsafe extern "C" fn cohort_last_error(buf: *mut u8, cap: usize) -> usize {
    catch_unwind(|| {
        LAST_ERROR.with(|e| {
            let e = e.borrow();
            if !buf.is_null() && cap > 0 {
                let mut n = e.len().min(cap);
                while !e.is_char_boundary(n) {
                    n -= 1;
                }
                // SAFETY: the caller gives `cap` writable bytes at `buf`; n <= cap.
                unsafe { std::ptr::copy_nonoverlapping(e.as_ptr(), buf, n) };
            }
            e.len()
        })
    })
    .unwrap_or(0)
}

/// Copies the name of `status` (as the header spells it, e.g. `COHORT_STATUS_DECODE`) into
/// `buf` like [`cohort_last_error`] and returns its length; an unknown value gives
/// `COHORT_STATUS_UNKNOWN`.
///
/// Thread-safe. The caller owns `buf`.
///
/// # Safety
/// `buf` must point to `cap` writable bytes, or be null.
#[no_mangle]
pub unsafe extern "C" fn cohort_status_name(status: i32, buf: *mut u8, cap: usize) -> usize {
    let name = STATUSES
        .iter()
        .find(|s| **s as i32 == status)
        .map_or("COHORT_STATUS_UNKNOWN", |s| s.name());
    if !buf.is_null() {
        let n = name.len().min(cap);
        // SAFETY: the caller gives `cap` writable bytes at `buf`; n <= cap.
        unsafe { std::ptr::copy_nonoverlapping(name.as_ptr(), buf, n) };
    }
    name.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_error() -> String {
        let mut buf = vec![0u8; 256];
        let n = unsafe { cohort_last_error(buf.as_mut_ptr(), buf.len()) };
        buf.truncate(n.min(256));
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let status = guard(|| panic!("boom {}", 7));
        assert_eq!(status, CohortStatus::Panic);
        assert_eq!(last_error(), "a bug inside Cohort: boom 7");
        assert_eq!(guard(|| Ok(())), CohortStatus::Ok);
        assert_eq!(
            last_error(),
            "a bug inside Cohort: boom 7",
            "kept until the next failure"
        );
    }

    #[test]
    fn a_failure_keeps_its_message_per_thread() {
        let status = guard(|| fail(CohortStatus::NotFound, "no unit 9"));
        assert_eq!(status, CohortStatus::NotFound);
        assert_eq!(last_error(), "no unit 9");
        let other = std::thread::spawn(last_error).join().unwrap();
        assert_eq!(other, "", "another thread has its own");
        assert_eq!(unsafe { cohort_last_error(std::ptr::null_mut(), 0) }, 9);
    }

    #[test]
    fn a_long_message_is_cut_at_a_character_boundary() {
        let _ = guard(|| fail(CohortStatus::Refused, "éé"));
        let mut buf = [0u8; 3];
        let n = unsafe { cohort_last_error(buf.as_mut_ptr(), 3) };
        assert_eq!(n, 4);
        assert_eq!(&buf[..2], "é".as_bytes());
    }

    #[test]
    fn every_status_has_its_name_and_value() {
        for (i, s) in STATUSES.iter().enumerate() {
            assert_eq!(*s as usize, i);
            let mut buf = [0u8; 64];
            let n = unsafe { cohort_status_name(i as i32, buf.as_mut_ptr(), 64) };
            assert_eq!(&buf[..n], s.name().as_bytes());
        }
        let n = unsafe { cohort_status_name(99, std::ptr::null_mut(), 0) };
        assert_eq!(n, "COHORT_STATUS_UNKNOWN".len());
    }
}
