//! Bytes across the boundary: strings in (pointer and length, UTF-8), buffers out (pointer
//! and capacity; nothing written when too small), and the ruleset a call names.

use crate::error::{fail, CohortStatus, Failure};
use cohort_sim::Ruleset;
use std::sync::Arc;

/// The bytes at `ptr`; null is allowed only with a length of 0.
///
/// # Safety
/// `ptr` must point to `len` readable bytes that stay valid for the call.
pub unsafe fn bytes_in<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return fail(
            CohortStatus::NullPointer,
            format!("{what} is null with a length of {len}"),
        );
    }
    // SAFETY: the caller promises `len` readable bytes at `ptr`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A UTF-8 string at `ptr` (no terminator needed).
///
/// # Safety
/// As [`bytes_in`].
pub unsafe fn str_in<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a str, Failure> {
    let bytes = unsafe { bytes_in(ptr, len, what) }?;
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::new(
            CohortStatus::InvalidArgument,
            format!("{what} is not UTF-8: {e}"),
        )
    })
}

/// An optional string: none when `ptr` is null (with a length of 0, as everywhere: null with
/// another length is `NULL_POINTER`).
///
/// # Safety
/// As [`bytes_in`].
pub unsafe fn opt_str_in<'a>(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        if len != 0 {
            return fail(
                CohortStatus::NullPointer,
                format!("{what} is null with a length of {len}"),
            );
        }
        return Ok(None);
    }
    unsafe { str_in(ptr, len, what) }.map(Some)
}

/// The ruleset a call names: a ruleset file's text, or the embedded default when null.
///
/// # Safety
/// As [`bytes_in`].
pub unsafe fn rules_from(ptr: *const u8, len: usize) -> Result<Arc<Ruleset>, Failure> {
    match unsafe { opt_str_in(ptr, len, "the ruleset") }? {
        None => Ok(Arc::new(Ruleset::default_rules())),
        Some(text) => Ruleset::from_toml(text, "the ruleset given")
            .map(Arc::new)
            .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string())),
    }
}

/// A required output pointer.
pub fn out_ptr<T>(ptr: *mut T, what: &str) -> Result<*mut T, Failure> {
    if ptr.is_null() {
        return fail(CohortStatus::NullPointer, format!("{what} is null"));
    }
    Ok(ptr)
}

/// Writes one value to a required output pointer.
///
/// # Safety
/// `ptr` must be null or point to a writable `T`.
pub unsafe fn write_out<T>(ptr: *mut T, value: T, what: &str) -> Result<(), Failure> {
    let ptr = out_ptr(ptr, what)?;
    // SAFETY: not null, and the caller promises a writable `T`.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Copies exactly `bytes.len()` bytes (a hash) to `out`.
///
/// # Safety
/// `out` must be null or point to `bytes.len()` writable bytes.
pub unsafe fn out_bytes(out: *mut u8, bytes: &[u8]) -> Result<(), Failure> {
    let out = out_ptr(out, "the output buffer")?;
    // SAFETY: not null, and the caller promises room for the bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
    Ok(())
}

/// The copy-out rule for lists and strings: `*count` is always set to how many items there are;
/// when `cap` is smaller, nothing is written and the status is `BUFFER_TOO_SMALL` (so a call
/// with `buf` null and `cap` 0 asks the size).
///
/// # Safety
/// `buf` must point to `cap` writable `T`s (or be null with `cap` 0); `count` must be null or
/// point to a writable `usize`.
pub unsafe fn out_list<T: Copy>(
    items: &[T],
    buf: *mut T,
    cap: usize,
    count: *mut usize,
) -> Result<(), Failure> {
    unsafe { write_out(count, items.len(), "the count pointer") }?;
    if cap < items.len() {
        return fail(
            CohortStatus::BufferTooSmall,
            format!("{} items do not fit in {cap}", items.len()),
        );
    }
    if items.is_empty() {
        return Ok(());
    }
    let buf = out_ptr(buf, "the buffer")?;
    // SAFETY: not null; the caller promises `cap` >= items.len() writable items.
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), buf, items.len()) };
    Ok(())
}

/// Copies `text` into `buf` (UTF-8, no terminator), most `max` bytes, cut at a character
/// boundary; returns the bytes written.
pub fn copy_cut(text: &str, buf: &mut [u8]) -> u32 {
    let mut n = text.len().min(buf.len());
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    buf[..n].copy_from_slice(&text.as_bytes()[..n]);
    n as u32
}
