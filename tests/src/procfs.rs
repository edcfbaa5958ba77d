//! Resident memory of a process and its descendants, from Linux's `/proc`.
//!
//! The benchmark reports memory for the whole process tree, so that a server started through a
//! launcher (`npx`, a shell script) is measured with the process that does the work. Elsewhere
//! than Linux every figure is `None`.

use std::fs;

/// Memory figures of a process tree, in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Memory {
    /// Current resident set size (`VmRSS`), summed over the tree.
    pub rss_kib: u64,
    /// Peak resident set size (`VmHWM`), summed over the tree (an upper bound of the tree's peak:
    /// the processes' peaks need not have been at the same time).
    pub hwm_kib: u64,
    /// How many processes the tree had.
    pub processes: usize,
}

/// One `kB` field (`VmRSS`, `VmHWM`, ...) of `/proc/PID/status`.
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_status_kib(&status, field)
}

fn parse_status_kib(status: &str, field: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// The parent pid in the text of `/proc/PID/stat` (the field after the state, which follows the
/// command name in parentheses; the name may itself hold spaces and parentheses).
fn parse_stat_ppid(stat: &str) -> Option<u32> {
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// `pid` and all its descendants (those alive now).
pub fn process_tree(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if let Some(ppid) = fs::read_to_string(format!("/proc/{child}/stat")).ok().and_then(|s| parse_stat_ppid(&s))
            {
                parents.push((child, ppid));
            }
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    tree
}

/// Memory of `pid` and its descendants; `None` when `pid`'s figures cannot be read.
pub fn tree_memory(pid: u32) -> Option<Memory> {
    // The root must be readable; descendants that vanish meanwhile are skipped.
    status_kib(pid, "VmRSS")?;
    let mut m = Memory::default();
    for p in process_tree(pid) {
        let (Some(rss), Some(hwm)) = (status_kib(p, "VmRSS"), status_kib(p, "VmHWM")) else {
            continue;
        };
        m.rss_kib += rss;
        m.hwm_kib += hwm;
        m.processes += 1;
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_status_and_stat() {
        let status = "Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n";
        assert_eq!(parse_status_kib(status, "VmRSS"), Some(1024));
        assert_eq!(parse_status_kib(status, "VmHWM"), Some(2048));
        assert_eq!(parse_status_kib(status, "VmSwap"), None);
        assert_eq!(parse_stat_ppid("42 (a (b) c) S 7 42 42 0"), Some(7));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn reads_own_memory() {
        let me = std::process::id();
        let m = tree_memory(me).unwrap();
        assert!(m.rss_kib > 0 && m.hwm_kib >= m.rss_kib && m.processes >= 1);
    }
}
