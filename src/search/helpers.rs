//! Starting a search's helper threads: as many as asked, or as many as the address space
//! leaves room for. `Threads 256` under a memory limit starts what fits, says so, and searches
//! on; started until the space ran out, the threads left none, and the next small allocation
//! (of any thread) aborted the process.

use crate::memory::address_space_left;
use std::thread::{Scope, ScopedJoinHandle};

/// Address space a helper is started only if it leaves free beside its stack: what the running
/// threads still allocate (glibc gives a thread that contends for the allocator an arena of its
/// own, 64 MiB of address space, reserved 128 MiB at a time).
const HEADROOM: usize = 256 << 20;

/// Starts one thread per job, named `helper N`, each with a stack of `stack` bytes, until the
/// jobs or the address space run out. Each helper is weighed only once the one before it has
/// its malloc arena: weighed while earlier helpers were still starting, the space looked free
/// and was not.
pub fn start<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    stack: usize,
    jobs: impl Iterator<Item = F>,
) -> Vec<ScopedJoinHandle<'scope, T>>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    let mut handles = Vec::new();
    for (i, job) in jobs.enumerate() {
        if !address_space_left(stack + HEADROOM) || handles.try_reserve(1).is_err() {
            break;
        }
        let (started, has_started) = crossbeam_channel::bounded(1);
        let spawned = std::thread::Builder::new()
            .name(format!("helper {}", i + 1))
            .stack_size(stack)
            .spawn_scoped(scope, move || {
                // The first allocation gives this thread its arena.
                drop(std::hint::black_box(Box::new(0u64)));
                let _ = started.send(());
                job()
            });
        match spawned {
            Ok(handle) => {
                handles.push(handle);
                let _ = has_started.recv();
            }
            Err(_) => break,
        }
    }
    handles
}

/// The one `info string` when fewer threads run than asked (both counts with the main thread).
pub fn shortfall_note(running: usize, wanted: usize) -> Option<String> {
    (running < wanted)
        .then(|| format!("Threads: only {running} of {wanted} threads could be started"))
}
