//! The allocator of a long-running server. docnav's binary allocates with mimalloc, which keeps
//! freed memory for a while (1 s, ten times that for its arenas) before returning it to the
//! system: right for a command that runs once, but under a steady load of searches that each
//! decode trees, the server then holds tens of megabytes it has freed (how much, at 10,000
//! documents: the benchmark history, docs/src/benchmarks-history.md, "The server"). The server
//! asks for freed memory to be returned at once, for a few percent of throughput.

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_e` (`include/mimalloc.h`): the delay in
/// ms before freed memory is returned ("memory purging is delayed by N milli seconds; use 0 for
/// immediate purging"). The Rust binding names no constant for it, so the number is checked by
/// a test against its default in mimalloc 3's `src/options.c` (1000; the header's comment still
/// says 10).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Have mimalloc return freed memory to the system at once. Call it once, before the server
/// starts its threads (mimalloc's option setter is not thread-safe). Without mimalloc as the
/// global allocator (the library's tests), it changes an option nobody reads.
pub fn return_freed_memory_promptly() {
    // SAFETY: `mi_option_set` takes an option number and a value and has no other effect than
    // setting that option; it is called before other threads exist.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_number_is_mimallocs_purge_delay() {
        // SAFETY: reading an option; no other test in this binary sets mimalloc options.
        let delay = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 1000, "mimalloc 3's purge delay defaults to 1000 ms");
    }
}
