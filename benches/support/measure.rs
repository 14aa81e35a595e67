//! Measuring helpers of the facade's benches: polling in-process futures
//! and counting allocations. Included by path:
//! `#[path = "support/measure.rs"] mod measure;`.

#![allow(dead_code, reason = "each bench uses a part")]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// The output of a future that completes on its first poll (every hook
/// the benches time decides in process).
///
/// # Panics
///
/// When the future is `Pending`: the bench would time the wrong thing.
pub(crate) fn poll_ready<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("an in-process dispatch or fold returned `Pending`"),
    }
}

/// Heap allocations per call of `f`, over `calls` calls
/// (`allocation-counter`'s counting allocator).
pub(crate) fn allocations(calls: u64, mut f: impl FnMut()) -> f64 {
    let counted = allocation_counter::measure(|| {
        for _ in 0..calls {
            f();
        }
    });
    counted.count_total as f64 / calls as f64
}
