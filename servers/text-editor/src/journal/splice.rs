//! What an edit did to a file's bytes, found without a second copy of the file: the span it
//! replaced ([`diff`]). The change journal ([`crate::journal`]) keeps it for undo.

/// What an edit did, in the file's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The edit replaced `removed` at `offset` with `inserted_len` new bytes.
    Splice {
        /// Where the change starts.
        offset: usize,
        /// The bytes the edit removed.
        removed: Vec<u8>,
        /// How many bytes the edit put in their place.
        inserted_len: usize,
    },
}

/// The change that turns `before` into `after`: their common prefix and suffix are left out.
pub fn diff(before: &[u8], after: &[u8]) -> Change {
    let prefix = common_prefix(before, after);
    let max_suffix = before.len().min(after.len()) - prefix;
    let suffix = common_suffix(&before[before.len() - max_suffix..], &after[after.len() - max_suffix..]);
    Change::Splice {
        offset: prefix,
        removed: before[prefix..before.len() - suffix].to_vec(),
        inserted_len: after.len() - suffix - prefix,
    }
}

/// Compares block by block (memcmp), then byte by byte in the first differing block.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + BLOCK <= n && a[n - i - BLOCK..n - i] == b[n - i - BLOCK..n - i] {
        i += BLOCK;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_finds_the_changed_span() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"hello world", b"hello brave world"),
            (b"abc", b""),
            (b"", b"xyz"),
            (b"aaaa", b"aa"),
            (b"same", b"same"),
        ];
        for (before, after) in cases {
            let Change::Splice { offset, removed, inserted_len } = diff(before, after);
            let back = [&after[..offset], &removed[..], &after[offset + inserted_len..]].concat();
            assert_eq!(&back, before);
        }
        let big_a = vec![b'x'; 10_000];
        let mut big_b = big_a.clone();
        big_b[5000] = b'y';
        assert_eq!(diff(&big_a, &big_b), Change::Splice { offset: 5000, removed: vec![b'x'], inserted_len: 1 });
    }
}
