//! Taking changes back: which files a set of journalled changes touched, what each was before
//! them and is now ([`plan`]), and writing that back as one change of its own ([`apply`]);
//! also the settling of a change whose writer died ([`settle`]).
//!
//! A plan walks the chosen groups newest first over a copy of the files in memory: each group
//! must find its files as it left them (else that file, and every file tied to it by a move in
//! the span, is a conflict and is left alone), and puts back what they were before it. Nothing
//! is written until the whole plan is known.

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
};

use mcp_shared::sandbox::{Sandbox, SandboxError, SandboxPath, WriteOptions};

use super::{Before, Change, Effect, JournalError, Kind, State, Txn, fingerprint};

/// A file's content and permission bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The permission bits.
    pub mode: u32,
}

/// A file in a plan: as it is now and as it was at the point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePlan {
    /// Now (`None`: absent).
    pub now: Option<Content>,
    /// At the point (`None`: absent).
    pub then: Option<Content>,
    /// The tools' changes to it in the span, oldest first: `(change, tool)`.
    pub changes: Vec<(u64, String)>,
    /// Where a move in the span took its content from (its path at the point).
    pub moved_from: Option<PathBuf>,
    /// The file the changes tie it to (a move ties its two paths): files of one tie are taken
    /// back together, and are one group of the revert's own change.
    pub tie: PathBuf,
}

/// What taking the chosen groups back would do.
#[derive(Debug, Default)]
pub struct Plan {
    /// The files it can take back, by path.
    pub files: BTreeMap<PathBuf, FilePlan>,
    /// The files it must leave as they are, and why.
    pub conflicts: BTreeMap<PathBuf, String>,
    /// The groups taken back (not those of a conflict), newest first.
    pub groups: Vec<(u64, u32)>,
    /// Directories made by the changes taken back (deepest first): removed when left empty.
    pub dirs: Vec<PathBuf>,
    /// Per change taken back, the lines it added and removed (a move's: none).
    pub lines: HashMap<u64, (u64, u64)>,
}

impl Plan {
    /// The files whose content changes (now is not then).
    pub fn changed(&self) -> impl Iterator<Item = (&PathBuf, &FilePlan)> {
        self.files.iter().filter(|(_, f)| f.now != f.then)
    }
}

/// The groups of the done changes after `after` made by `session` (all sessions: `None`) that
/// touch a file inside one of `roots` and one of `paths` (every path: `None`), newest first.
pub fn select(
    txn: &Txn<'_>,
    roots: &[PathBuf],
    after: u64,
    session: Option<&str>,
    paths: Option<&[PathBuf]>,
) -> Vec<(u64, u32)> {
    let mut picked = Vec::new();
    for change in txn.changes().iter().rev() {
        if change.seq <= after {
            break;
        }
        if change.state != State::Done || session.is_some_and(|s| s != change.session) {
            continue;
        }
        for group in change.groups() {
            let touches = |e: &&Effect| {
                e.group == group
                    && paths.is_none_or(|p| p.contains(&e.path))
                    && roots.iter().any(|root| e.path.starts_with(root))
            };
            if change.effects.iter().any(|e| touches(&e)) {
                picked.push((change.seq, group));
            }
        }
    }
    picked
}

/// The file at `path` now, through the sandbox (`Ok(None)`: absent); `Err`: why it cannot be
/// taken back.
pub fn read_state(sandbox: &Sandbox, path: &Path, max_bytes: u64) -> Result<Option<Content>, String> {
    let shown = path.display().to_string();
    let resolved = sandbox.resolve(&shown).map_err(|_| {
        if sandbox.roots().iter().any(|root| path.starts_with(root)) {
            format!("{shown} is no longer inside the workspace")
        } else {
            format!(
                "{shown} is outside this server's roots (start it with a --root that holds it to take this change back)"
            )
        }
    })?;
    // A link (the file, a dangling one, or a directory on its way) would make the write land
    // in another file, one no change touched: never followed.
    match sandbox.resolve_file(&resolved) {
        Ok(r) if r.canonical() == resolved.absolute() => {}
        Ok(_) => return Err(format!("{shown} is reached through a symbolic link now, which is never followed")),
        Err(e) => return Err(format!("{shown} cannot be read ({e})")),
    }
    match sandbox.metadata(&resolved) {
        Err(SandboxError::NotFound { .. }) => Ok(None),
        Err(e) => Err(format!("{shown} cannot be read ({e})")),
        Ok(md) if md.is_dir => Err(format!("{shown} is a directory now")),
        Ok(md) if !md.is_file => Err(format!("{shown} is not a regular file now")),
        Ok(md) if md.len > max_bytes => Err(format!("{shown} is {} bytes now, more than --max-file-size", md.len)),
        Ok(md) => match sandbox.read(&resolved) {
            Ok(bytes) => Ok(Some(Content { bytes, mode: md.permissions_mode })),
            Err(SandboxError::NotFound { .. }) => Ok(None),
            Err(e) => Err(format!("{shown} cannot be read ({e})")),
        },
    }
}

/// Paths tied together by the chosen groups (a move ties its two): a small union-find.
struct Ties {
    parent: HashMap<PathBuf, PathBuf>,
}

impl Ties {
    fn root(&mut self, path: &Path) -> PathBuf {
        let mut at = path.to_path_buf();
        while let Some(up) = self.parent.get(&at).filter(|up| **up != at) {
            at = up.clone();
        }
        at
    }

    fn tie(&mut self, a: &Path, b: &Path) {
        let (ra, rb) = (self.root(a), self.root(b));
        self.parent.entry(ra.clone()).or_insert_with(|| ra.clone());
        self.parent.entry(rb.clone()).or_insert_with(|| rb.clone());
        if ra != rb {
            self.parent.insert(ra, rb);
        }
    }
}

/// What taking back `picked` (groups, newest first) would do to the files, as they are now.
pub fn plan(txn: &mut Txn<'_>, sandbox: &Sandbox, picked: &[(u64, u32)], max_bytes: u64) -> Result<Plan, JournalError> {
    let chosen: Vec<(Change, u32)> =
        picked.iter().filter_map(|(seq, group)| txn.change(*seq).map(|c| (c.clone(), *group))).collect();
    let mut ties = Ties { parent: HashMap::new() };
    for (change, group) in &chosen {
        let mut paths = change.effects.iter().filter(|e| e.group == *group).map(|e| e.path.as_path());
        if let Some(first) = paths.next() {
            ties.tie(first, first);
            for other in paths {
                ties.tie(first, other);
            }
        }
    }
    let mut states: HashMap<PathBuf, Option<Content>> = HashMap::new();
    let mut initial: HashMap<PathBuf, Option<Content>> = HashMap::new();
    let mut broken: HashMap<PathBuf, String> = HashMap::new();
    let mut plan = Plan::default();
    let mut history: HashMap<PathBuf, Vec<(u64, String)>> = HashMap::new();
    let mut moved_from: HashMap<PathBuf, PathBuf> = HashMap::new();
    for (change, group) in &chosen {
        let effects: Vec<&Effect> = change.effects.iter().filter(|e| e.group == *group).collect();
        let Some(first) = effects.first() else { continue };
        let tie = ties.root(&first.path);
        if broken.contains_key(&tie) {
            continue;
        }
        // Each file as this group left it?
        let mut why = None;
        for effect in &effects {
            if !states.contains_key(&effect.path) {
                match read_state(sandbox, &effect.path, max_bytes) {
                    Ok(state) => {
                        initial.insert(effect.path.clone(), state.clone());
                        states.insert(effect.path.clone(), state);
                    }
                    Err(reason) => {
                        why = Some((effect.path.clone(), reason));
                        break;
                    }
                }
            }
            let current = states.get(&effect.path).and_then(|s| s.as_ref()).map(|c| c.bytes.as_slice());
            if !effect.left(current) {
                let shown = effect.path.display();
                let reason = match (effect.after, current) {
                    (None, Some(_)) => format!("{shown} was created again by someone else since change {}", change.seq),
                    (Some(_), None) => format!("{shown} was deleted by someone else since change {}", change.seq),
                    _ => format!("{shown} was changed by someone else since change {}", change.seq),
                };
                why = Some((effect.path.clone(), reason));
                break;
            }
        }
        if let Some((path, reason)) = why {
            plan.conflicts.insert(path, reason.clone());
            broken.insert(tie, reason);
            continue;
        }
        // What they were before it.
        let mut befores = Vec::with_capacity(effects.len());
        for effect in &effects {
            let current = states.get(&effect.path).cloned().flatten();
            let before = match &effect.before {
                Before::Absent => None,
                Before::Bytes { mode } => Some(Content { bytes: txn.payload(change.seq, effect)?, mode: *mode }),
                Before::Splice { offset, inserted_len } => {
                    let removed = txn.payload(change.seq, effect)?;
                    let now = current.as_ref().map(|c| c.bytes.as_slice()).unwrap_or_default();
                    let spliced = splice_back(now, *offset, *inserted_len, &removed)
                        .ok_or(JournalError::Damaged { seq: change.seq })?;
                    Some(Content { bytes: spliced, mode: current.as_ref().map_or(0o644, |c| c.mode) })
                }
                Before::SameAs { path, mode } => {
                    let other = states.get(path).cloned().flatten().ok_or(JournalError::Damaged { seq: change.seq })?;
                    moved_from.insert(path.clone(), effect.path.clone());
                    Some(Content { bytes: other.bytes, mode: *mode })
                }
            };
            befores.push((effect.path.clone(), before));
        }
        let moves = effects.iter().any(|e| matches!(e.before, Before::SameAs { .. }));
        let lines = plan.lines.entry(change.seq).or_default();
        for (path, before) in befores {
            if !moves {
                let after = states.get(&path).and_then(|s| s.as_ref()).map(|c| c.bytes.as_slice()).unwrap_or_default();
                let (added, removed) =
                    line_delta(before.as_ref().map(|c| c.bytes.as_slice()).unwrap_or_default(), after);
                lines.0 += added;
                lines.1 += removed;
            }
            states.insert(path.clone(), before);
            history.entry(path).or_default().push((change.seq, change.tool.clone()));
        }
        plan.groups.push((change.seq, *group));
        plan.dirs.extend(change.dirs.iter().cloned());
    }
    // Files tied to a conflict are left too.
    for (path, state) in states {
        let tie = ties.root(&path);
        if let Some(reason) = broken.get(&tie) {
            if !plan.conflicts.contains_key(&path) {
                plan.conflicts.insert(
                    path.clone(),
                    format!("{} is tied by a move to a file left as it is: {reason}", path.display()),
                );
            }
            continue;
        }
        let mut changes = history.remove(&path).unwrap_or_default();
        changes.reverse();
        let moved = moved_from.get(&path).cloned();
        let now = initial.remove(&path).flatten();
        plan.files.insert(path, FilePlan { now, then: state, changes, moved_from: moved, tie });
    }
    // The groups of a broken tie are not taken back.
    let kept: Vec<(u64, u32)> = plan
        .groups
        .iter()
        .copied()
        .filter(|(seq, group)| {
            txn.change(*seq)
                .and_then(|c| c.effects.iter().find(|e| e.group == *group))
                .is_none_or(|e| !broken.contains_key(&ties.root(&e.path)))
        })
        .collect();
    plan.groups = kept;
    Ok(plan)
}

/// The lines `after` adds to `before` and removes from it, once their common first and last
/// lines are set aside (what a diff counts for one edited region; a rough count for several).
pub fn line_delta(before: &[u8], after: &[u8]) -> (u64, u64) {
    let a: Vec<&[u8]> = before.split_inclusive(|b| *b == b'\n').collect();
    let b: Vec<&[u8]> = after.split_inclusive(|b| *b == b'\n').collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    ((b.len() - head - tail) as u64, (a.len() - head - tail) as u64)
}

/// `now` with `inserted_len` bytes at `offset` replaced by `removed`.
fn splice_back(now: &[u8], offset: u64, inserted_len: u64, removed: &[u8]) -> Option<Vec<u8>> {
    let a = usize::try_from(offset).ok()?;
    let b = a.checked_add(usize::try_from(inserted_len).ok()?)?;
    let (head, tail) = (now.get(..a)?, now.get(b..)?);
    Some([head, removed, tail].concat())
}

/// The change that turns `before` into `after`, for one file: what `before` was, given
/// `after`, and the payload that says it.
pub fn effect_between(path: &Path, group: u32, before: Option<&Content>, after: Option<&Content>) -> (Effect, Vec<u8>) {
    let (was, payload) = match (before, after) {
        (None, _) => (Before::Absent, Vec::new()),
        (Some(b), None) => (Before::Bytes { mode: b.mode }, b.bytes.clone()),
        (Some(b), Some(a)) => {
            let super::splice::Change::Splice { offset, removed, inserted_len } =
                super::splice::diff(&b.bytes, &a.bytes);
            (Before::Splice { offset: offset as u64, inserted_len: inserted_len as u64 }, removed)
        }
    };
    let effect = Effect {
        path: path.to_path_buf(),
        group,
        before: was,
        after: after.map(|a| (a.bytes.len() as u64, fingerprint(&a.bytes))),
        payload: (0, 0),
        payload_at: 0,
    };
    (effect, payload)
}

/// The directories above `path` that do not exist (absolute, deepest first): those a write
/// with `create_parents` makes.
pub fn missing_parents(sandbox: &Sandbox, path: &SandboxPath) -> Vec<String> {
    let mut missing = Vec::new();
    let mut at = path.parent();
    while let Some(dir) = at {
        if !matches!(sandbox.exists(&dir), Ok(false)) {
            break;
        }
        missing.push(dir.absolute().display().to_string());
        at = dir.parent();
    }
    missing
}

/// Why [`apply`] wrote nothing.
#[derive(Debug)]
pub enum ApplyError {
    /// The journal failed.
    Journal(JournalError),
    /// A file changed while the plan was written: what was written is put back.
    Moved(String),
    /// A write failed and a file written before it could not be put back (see the text).
    Kept(String),
    /// A write failed: what was written is put back.
    Write(SandboxError),
}

impl From<JournalError> for ApplyError {
    fn from(e: JournalError) -> Self {
        ApplyError::Journal(e)
    }
}

/// Who takes the changes back, and how.
pub struct Taker<'a> {
    /// Who takes them back (the tool, e.g. `revert_changes`, and the session).
    pub origin: &'a super::Origin,
    /// Undo or revert.
    pub kind: Kind,
    /// fsync what is written.
    pub fsync: bool,
}

fn resolve(sandbox: &Sandbox, path: &Path) -> Result<SandboxPath, ApplyError> {
    sandbox.resolve(&path.display().to_string()).map_err(ApplyError::Write)
}

/// Writes `content` at `path` (`None`: removes it) only if the file still holds `now` (`None`:
/// it is absent), checked just before the rename or, for a removal, on the file renamed aside:
/// a version written meanwhile by a program that takes no lock is never replaced.
fn put_if(
    sandbox: &Sandbox,
    path: &Path,
    content: Option<&Content>,
    now: Option<&Content>,
    fsync: bool,
) -> Result<(), SandboxError> {
    let at = sandbox.resolve(&path.display().to_string())?;
    let expected = now.map(|c| c.bytes.as_slice());
    match content {
        Some(c) => {
            let options = WriteOptions { fsync, create_parents: true, create_new: false, mode_if_new: Some(c.mode) };
            let unchanged = || match sandbox.read(&at) {
                Ok(bytes) => expected == Some(bytes.as_slice()),
                Err(SandboxError::NotFound { .. }) => expected.is_none(),
                Err(_) => false,
            };
            sandbox.write_atomic_unless_changed(&at, &c.bytes, &options, &unchanged)
        }
        None if expected.is_none() => Ok(()),
        None => sandbox.remove_file_if(&at, &|file| {
            use std::io::Read as _;
            let mut bytes = Vec::new();
            file.take(u64::MAX).read_to_end(&mut bytes).is_ok() && expected == Some(bytes.as_slice())
        }),
    }
}

/// The advisory lock on the file at `path` (the one an edit holds from its read to its write),
/// taken without waiting: `Ok(None)` when there is no file (or no such locks here); `Err` when
/// another process holds it (a write in progress: the revert is refused, never waited on while
/// the journal is held).
fn try_lock_file(sandbox: &Sandbox, path: &Path) -> Result<Option<std::fs::File>, String> {
    if !mcp_shared::platform::ADVISORY_FILE_LOCKS {
        return Ok(None);
    }
    let Ok(at) = sandbox.resolve(&path.display().to_string()) else { return Ok(None) };
    let Ok(file) = sandbox.open_read(&at) else { return Ok(None) };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(format!("{} is being written by another process right now", path.display()))
        }
        Err(std::fs::TryLockError::Error(_)) => Ok(None),
    }
}

/// Writes the plan's files back to what they were at the point, as one change of the journal
/// (so that it can be taken back in turn); its number (`None`: nothing to write).
pub fn apply(txn: &mut Txn<'_>, sandbox: &Sandbox, plan: &Plan, taker: &Taker<'_>) -> Result<Option<u64>, ApplyError> {
    let files: Vec<(&PathBuf, &FilePlan)> = plan.changed().collect();
    let mut effects = Vec::with_capacity(files.len());
    let mut payloads = Vec::with_capacity(files.len());
    for (group, (path, file)) in files.iter().enumerate() {
        let (effect, payload) =
            effect_between(path, u32::try_from(group).unwrap_or(u32::MAX), file.now.as_ref(), file.then.as_ref());
        effects.push(effect);
        payloads.push(payload);
    }
    if effects.is_empty() && plan.groups.is_empty() {
        return Ok(None);
    }
    let mut change = Change::new(taker.origin, taker.kind, effects);
    change.roots = sandbox.roots().to_vec();
    change.undoes = plan.groups.clone();
    // The directories a restored file needs are made, and recorded: taking this change back
    // removes them again.
    for (path, file) in &files {
        if file.now.is_none()
            && file.then.is_some()
            && let Ok(at) = resolve(sandbox, path)
        {
            for dir in missing_parents(sandbox, &at) {
                let dir = PathBuf::from(dir);
                if !change.dirs.contains(&dir) {
                    change.dirs.push(dir);
                }
            }
        }
    }
    change.dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let seq = txn.begin(change, &refs)?;
    let mut written: Vec<(&PathBuf, &FilePlan)> = Vec::new();
    let mut failure = None;
    // Each file's advisory lock, held to the end: an edit in progress elsewhere refuses it.
    let mut locks = Vec::with_capacity(files.len());
    for (path, file) in &files {
        match try_lock_file(sandbox, path) {
            Ok(lock) => locks.push(lock),
            Err(why) => {
                failure = Some(ApplyError::Moved(why));
                break;
            }
        }
        // Still as the plan found it? (A program that takes no lock may have written it.)
        let current = match read_state(sandbox, path, u64::MAX) {
            Ok(current) => current,
            Err(why) => {
                failure = Some(ApplyError::Moved(why));
                break;
            }
        };
        if current.as_ref().map(|c| &c.bytes) != file.now.as_ref().map(|c| &c.bytes) {
            failure =
                Some(ApplyError::Moved(format!("{} changed while the changes were being reverted", path.display())));
            break;
        }
        match put_if(sandbox, path, file.then.as_ref(), file.now.as_ref(), taker.fsync) {
            Ok(()) => {}
            Err(SandboxError::Changed { .. }) => {
                failure = Some(ApplyError::Moved(format!(
                    "{} changed while the changes were being reverted",
                    path.display()
                )));
                break;
            }
            Err(error) => {
                failure = Some(if written.is_empty() {
                    ApplyError::Write(error)
                } else {
                    ApplyError::Kept(format!("{} could not be written ({error})", path.display()))
                });
                break;
            }
        }
        written.push((path, file));
    }
    if let Some(mut failure) = failure {
        // What was written is put back, unless it changed since (a program that takes no lock
        // wrote it after the revert did): then it is left with that change, and said.
        let mut kept = Vec::new();
        for (path, file) in written.iter().rev() {
            if let Err(error) = put_if(sandbox, path, file.now.as_ref(), file.then.as_ref(), taker.fsync) {
                tracing::error!(path = %path.display(), %error, "a reverted file could not be put back");
                kept.push(path.display().to_string());
            }
        }
        if !kept.is_empty()
            && let ApplyError::Moved(why) | ApplyError::Kept(why) = &mut failure
        {
            why.push_str(&format!(
                "; {} changed again right after it was reverted, so it keeps the reverted text with that change",
                kept.join(", ")
            ));
        }
        txn.finish(seq, false)?;
        return Err(failure);
    }
    for dir in &plan.dirs {
        if let Ok(at) = resolve(sandbox, dir) {
            let _ = sandbox.remove_empty_dir(&at);
        }
    }
    txn.finish(seq, true)?;
    Ok(Some(seq))
}

/// Settles every change whose writer died between its begin and its end (seen under the
/// journal's lock, so no live writer holds it): done when every file is as it left them;
/// otherwise the files it reached are put back as they were, and it is failed. A change whose
/// files are outside this sandbox is left for a process that can reach them.
pub fn settle(txn: &mut Txn<'_>, sandbox: &Sandbox, max_bytes: u64, fsync: bool) -> Result<(), JournalError> {
    for seq in txn.pending() {
        let Some(change) = txn.change(seq).cloned() else { continue };
        let mut currents = Vec::with_capacity(change.effects.len());
        let mut reachable = true;
        for effect in &change.effects {
            match read_state(sandbox, &effect.path, max_bytes) {
                Ok(state) => currents.push(state),
                Err(_) => {
                    reachable = false;
                    break;
                }
            }
        }
        if !reachable {
            continue;
        }
        let left: Vec<bool> =
            change.effects.iter().zip(&currents).map(|(e, c)| e.left(c.as_ref().map(|c| c.bytes.as_slice()))).collect();
        if left.iter().all(|l| *l) {
            tracing::info!(seq, "a change whose writer stopped was found complete");
            txn.finish(seq, true)?;
            continue;
        }
        // Put back the files it reached (their before, from what they are after).
        for (index, effect) in change.effects.iter().enumerate() {
            if !left[index] || effect.after.is_none() && matches!(effect.before, Before::Absent) {
                continue;
            }
            let before = match &effect.before {
                Before::Absent => None,
                Before::Bytes { mode } => Some(Content { bytes: txn.payload(seq, effect)?, mode: *mode }),
                Before::Splice { offset, inserted_len } => {
                    let removed = txn.payload(seq, effect)?;
                    let now = currents[index].as_ref().map(|c| c.bytes.as_slice()).unwrap_or_default();
                    splice_back(now, *offset, *inserted_len, &removed)
                        .map(|bytes| Content { bytes, mode: currents[index].as_ref().map_or(0o644, |c| c.mode) })
                }
                Before::SameAs { path, mode } => {
                    let at = change.effects.iter().position(|e| e.path == *path);
                    at.and_then(|at| currents[at].clone()).map(|c| Content { bytes: c.bytes, mode: *mode })
                }
            };
            let now = currents[index].as_ref();
            if let Err(error) = put_if(sandbox, &effect.path, before.as_ref(), now, fsync) {
                tracing::error!(seq, path = %effect.path.display(), %error, "a file of an unfinished change could not be put back");
            }
        }
        tracing::info!(seq, "a change whose writer stopped half-way was taken back");
        txn.finish(seq, false)?;
    }
    Ok(())
}
