//! The client side of the testee protocol: runs a testee command as a subprocess and implements
//! [`Backend`] over its stdin and stdout.
//!
//! PLACEHOLDER: the real client is written separately (branch `harness-proto`) and replaces this
//! file when merged. Until then `--testee` is accepted and reports that it is not available.

use crate::protocol::Backend;

/// A backend that talks to the testee started by `cmd`.
pub fn testee_backend(cmd: &str) -> Result<Box<dyn Backend>, String> {
    let _ = cmd;
    Err("testee support not merged yet".into())
}
