//! Handles: every object the ABI hands out is named by a number in one registry, never by a
//! pointer, so a handle that is 0, freed, made up or of the other kind is refused with
//! `COHORT_STATUS_INVALID_HANDLE` instead of being dereferenced. Numbers are never reused.

use crate::client::ClientBox;
use crate::error::{fail, CohortStatus, Failure};
use crate::world::WorldBox;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A world or a client, as the C side holds it: 0 is never a handle.
pub type CohortHandle = u64;

/// What a handle names. Each object has its own lock: calls on one handle take turns, calls
/// on different handles run side by side.
pub enum Object {
    World(Box<Mutex<WorldBox>>),
    Client(Box<Mutex<ClientBox>>),
}

static REGISTRY: Mutex<BTreeMap<CohortHandle, Arc<Object>>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicU64 = AtomicU64::new(1);

fn registry() -> MutexGuard<'static, BTreeMap<CohortHandle, Arc<Object>>> {
    // Nothing panics while holding this lock; a poisoned one is still a sound map.
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Registers an object and returns its new handle.
pub fn insert(object: Object) -> CohortHandle {
    let handle = NEXT.fetch_add(1, Ordering::Relaxed);
    registry().insert(handle, Arc::new(object));
    handle
}

/// The object a handle names.
pub fn get(handle: CohortHandle) -> Result<Arc<Object>, Failure> {
    match registry().get(&handle) {
        Some(o) => Ok(o.clone()),
        None => fail(
            CohortStatus::InvalidHandle,
            format!("{handle} is not a live handle (0, freed, or never made)"),
        ),
    }
}

/// Takes a handle out of the registry; the object is dropped by the caller, outside the
/// registry's lock (a client's drop waits for its network thread).
pub fn remove(handle: CohortHandle, world: bool) -> Result<Arc<Object>, Failure> {
    let mut reg = registry();
    match reg.get(&handle).map(|o| matches!(**o, Object::World(_))) {
        Some(is_world) if is_world == world => Ok(reg.remove(&handle).expect("present")),
        Some(_) => fail(
            CohortStatus::InvalidHandle,
            format!(
                "handle {handle} is a {}, not a {}",
                if world { "client" } else { "world" },
                if world { "world" } else { "client" }
            ),
        ),
        None => fail(
            CohortStatus::InvalidHandle,
            format!("{handle} is not a live handle (0, freed, or never made)"),
        ),
    }
}

/// Locks an object; a lock poisoned by a panic in an earlier call stays refused.
pub fn lock<T>(m: &Mutex<T>) -> Result<MutexGuard<'_, T>, Failure> {
    m.lock().map_err(|_| {
        Failure::new(
            CohortStatus::Panic,
            "an earlier call on this handle failed inside Cohort (a bug); free the handle",
        )
    })
}

/// Runs `f` on the world a handle names.
pub fn with_world<R>(
    handle: CohortHandle,
    f: impl FnOnce(&mut WorldBox) -> Result<R, Failure>,
) -> Result<R, Failure> {
    let object = get(handle)?;
    match &*object {
        Object::World(w) => f(&mut *lock(w)?),
        Object::Client(_) => fail(
            CohortStatus::InvalidHandle,
            format!("handle {handle} is a client; this function takes a world"),
        ),
    }
}

/// Runs `f` on the client a handle names.
pub fn with_client<R>(
    handle: CohortHandle,
    f: impl FnOnce(&mut ClientBox) -> Result<R, Failure>,
) -> Result<R, Failure> {
    let object = get(handle)?;
    match &*object {
        Object::Client(c) => f(&mut *lock(c)?),
        Object::World(_) => fail(
            CohortStatus::InvalidHandle,
            format!("handle {handle} is a world; this function takes a client"),
        ),
    }
}
