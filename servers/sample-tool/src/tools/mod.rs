//! The tools of the sample server, one file each and one line each below.

mcp_shared::tools! {
    /// The server's tools that `offer` accepts, in `tools/list` order.
    pub fn all(_unused: &()) {
        hoge => hoge::Hoge,
        countdown => countdown::Countdown,
    }
}
