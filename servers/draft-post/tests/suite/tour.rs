//! The tour's draft-post section (`cargo run --bin tour`) passes against these binaries, so a change
//! that breaks the README's first command fails the tests.

use std::path::Path;

use mcp_tests::tour::{Tour, draft_post};

use super::BIN;

#[test]
fn the_tour_section_passes() {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let mut tour = Tour::new(Box::new(std::io::sink()), false).with_bin_dir(bin_dir);
    draft_post::run(&mut tour).unwrap();
    assert!(tour.failures().is_empty(), "{:?}", tour.failures());
    assert!(tour.passed() >= 5, "{} checks", tour.passed());
}
