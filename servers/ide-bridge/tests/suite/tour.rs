//! The tour's ide-bridge section (`cargo run --bin tour`) passes against these binaries.

use std::path::Path;

use mcp_tests::tour::{Tour, ide_bridge};

use super::BRIDGE;

#[test]
fn the_tour_section_passes() {
    let bin_dir = Path::new(BRIDGE).parent().unwrap();
    let mut tour = Tour::new(Box::new(std::io::sink()), false).with_bin_dir(bin_dir);
    ide_bridge::run(&mut tour).unwrap();
    assert!(tour.failures().is_empty(), "{:?}", tour.failures());
    assert!(tour.passed() >= 12, "{} checks", tour.passed());
}
