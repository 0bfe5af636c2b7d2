//! Test support: a fixed stream of scrambled 64-bit values (xorshift64*, Vigna 2016) for the
//! event-queue structures' tests against std's binary heap.

/// The next value of the stream whose state is `s`.
pub fn next(s: &mut u64) -> u64 {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(0x2545_F491_4F6C_DD1D)
}
