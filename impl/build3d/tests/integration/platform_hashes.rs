//! The SHA-256 over the content ids of every tile of each demo mesh, at the demo and cheap
//! settings, as computed on x86_64. Run on other platforms (`.ci/cross` with
//! `-p onav-build3d`: s390x big-endian, i686 32-bit), equal digests show the bytes agree
//! (`spec/build3d.md` B51). The tiles themselves are checked by `demo::*`; these values only
//! pin them across platforms and pipeline changes (raise `PIPELINE_VERSION` when they change).

use onav_build3d::{build, Settings, SettingsSpec};
use sha2::{Digest, Sha256};

use crate::kit::demo_mesh;

const EXPECTED: [(&str, bool, &str); 6] = [
    ("dungeon", true, DUNGEON_DEMO),
    ("dungeon", false, DUNGEON_CHEAP),
    ("nav_test", true, NAV_TEST_DEMO),
    ("nav_test", false, NAV_TEST_CHEAP),
    ("undulating", true, UNDULATING_DEMO),
    ("undulating", false, UNDULATING_CHEAP),
];

const DUNGEON_DEMO: &str = "69083c801c59117ff752d28bcfc38b3ee3a8e83c380b31272f025899608960c3";
const DUNGEON_CHEAP: &str = "301873c0de5decc347781f95d80f13e6352a15351a332bb0a05b80775446e164";
const NAV_TEST_DEMO: &str = "b31edd4c3420e8a9b6f42747a583c4cde54c77fcb09d50ad5f90ff4a7fe31e4e";
const NAV_TEST_CHEAP: &str = "f2eefc5f3962b12a3e3124e193386c6bead401a62258e654eeb2dfd030e5984c";
const UNDULATING_DEMO: &str = "b99fbce6136ff7cd3283e8a7b13de3711eca7ce6603d5f92d22362dff45e1466";
const UNDULATING_CHEAP: &str = "7ce7312f9c4d89cd48ff23f3fb6f8e9c6ff6c18deaa68b3e157f523b0dd33b23";

#[test]
fn demo_tiles_hash_the_same_on_every_platform() {
    let mut report = String::new();
    let mut ok = true;
    for (name, detail, want) in EXPECTED {
        let spec = SettingsSpec {
            detail_sample_dist: if detail { 1.8 } else { 0.0 },
            ..SettingsSpec::default()
        };
        let b = build(&demo_mesh(name), &Settings::new(spec).unwrap()).unwrap();
        let mut h = Sha256::new();
        for t in &b.tiles {
            h.update(t.content_id().0);
        }
        let got: String = h.finalize().iter().map(|x| format!("{x:02x}")).collect();
        report.push_str(&format!("{name} detail={detail}: {got}\n"));
        ok &= got == want;
    }
    assert!(ok, "tile digests differ:\n{report}");
}
