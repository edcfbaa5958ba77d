//! The tour's draft-post section (`cargo run --bin tour`) passes against these binaries, so a change
//! that breaks the README's first command fails the tests.

use std::path::Path;

use mcp_tests::tour::{Tour, draft_post};

use super::BIN;

#[test]
fn the_tour_section_passes() {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let passed = Tour::run_quietly(bin_dir, draft_post::run).unwrap();
    assert!(passed >= 5, "{passed} checks");
}
