//! Software prefetch: ask the CPU to start loading a value's cache lines now, so that a read
//! of it later does not stall. Only a hint: it never faults, changes no value, and on other
//! architectures it does nothing.

/// Bytes per cache line on the machines the engine runs on (x86-64).
const LINE: usize = 64;

/// Start bringing every cache line of `*value` into the L1 data cache.
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = value as *const T as *const i8;
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            // SAFETY: `start + off` lies inside `*value`, a live reference; a prefetch reads
            // nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(off)) };
            off += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
