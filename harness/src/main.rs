//! `onav`: the conformance and determinism harness (see `spec/conformance.md`).

fn main() {
    println!(
        "onav harness, protocol {}",
        onav_harness::protocol::PROTOCOL_VERSION
    );
}
