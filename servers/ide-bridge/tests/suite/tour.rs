//! The tour's ide-bridge section (`cargo run --bin tour`) passes against these binaries, so a change
//! that breaks the README's first command fails the tests.

use std::path::Path;

use mcp_tests::tour::{Tour, ide_bridge};

use super::BRIDGE;

#[test]
fn the_tour_section_passes() {
    let bin_dir = Path::new(BRIDGE).parent().unwrap();
    let passed = Tour::run_quietly(bin_dir, ide_bridge::run).unwrap();
    assert!(passed >= 12, "{passed} checks");
}
