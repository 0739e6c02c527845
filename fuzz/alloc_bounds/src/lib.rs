//! Empty: the test lives in `tests/alloc_bounds.rs` (its own binary, so its global allocator
//! affects only it).
