//! The tour's text-editor section (`cargo run --bin tour`) passes against these binaries, so a change
//! that breaks the README's first command fails the tests.

use std::path::Path;

use mcp_tests::tour::{Tour, text_editor};

use super::BIN;

#[test]
fn the_tour_section_passes() {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let mut tour = Tour::new(Box::new(std::io::sink()), false).with_bin_dir(bin_dir);
    text_editor::run(&mut tour).unwrap();
    assert!(tour.failures().is_empty(), "{:?}", tour.failures());
    assert!(tour.passed() >= 5, "{} checks", tour.passed());
}
