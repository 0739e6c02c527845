//! DetourTileCache (issue 15 item 6): placeholder until the C++ side is written.

/// Not yet measured.
pub fn available() -> bool {
    false
}
