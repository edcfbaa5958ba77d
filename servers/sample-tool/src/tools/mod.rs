//! The tools of the sample server, one file each.

pub mod countdown;
pub mod hoge;
