//! The servers' global allocator: mimalloc for a server started with `--http` on Linux, the
//! C library's `malloc` for everything else.
//!
//! Over HTTP a call allocates on one tokio worker thread and is often freed on the other, and
//! glibc's `malloc` then takes the arena's lock of the thread that allocated the block (every
//! `realloc` takes it too): in a session call about 80% of the server's `futex` calls were
//! those locks' waits and wake-ups (`strace -f -k`). mimalloc frees such a block without a lock,
//! onto its owner's list. Over stdio the opposite holds: a server answers one client, its cold
//! start is a few hundred page faults, and mimalloc's start-up (its options read from the
//! environment, its page map) would add to both the start and the memory at rest. So the choice
//! is made per process, once, before its first allocation:
//!
//! - [`choose_at_start`] runs from the executable's `.init_array` (the C library calls it with
//!   the command line before `main`, as it calls std's own argument set-up), and chooses
//!   mimalloc when an argument is `--http` or `--http=ADDR`. The flag's meaning is clap's, which
//!   parses the same arguments later; a value that merely looks like it only changes which
//!   allocator serves the process, never what it does.
//! - The first allocation settles the choice for good: one that comes before the start-up
//!   function (or where there is none: other operating systems, test harnesses) takes `malloc`,
//!   and the start-up function can no longer change it. A block is therefore always freed by the
//!   allocator that gave it.
//! - mimalloc itself is started only when it is chosen. Built as it comes, it starts from a
//!   constructor of its own in every process that links it, stdio servers too (about 7% of a
//!   stdio start's CPU time). The build defines `MI_PRIM_HAS_PROCESS_ATTACH` for it
//!   (`CFLAGS_<target>` in `.cargo/config.toml`), which leaves that constructor out, and
//!   [`choose_at_start`] runs the same start-up (`_mi_auto_process_init`) when it chooses
//!   mimalloc. A build without the define still works: the constructor has started it, and
//!   [`mimalloc_started`] tells, so it is not started twice.
//!
//! [`server_allocator!`](crate::server_allocator) installs both in a server's binary.

use std::alloc::{GlobalAlloc, Layout, System};
#[cfg(all(target_os = "linux", target_env = "gnu"))]
use std::sync::atomic::{AtomicU8, Ordering};

/// No allocation yet, and no choice made.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const UNDECIDED: u8 = 0;
/// The C library's `malloc` (std's `System`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const SYSTEM: u8 = 1;
/// mimalloc.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MIMALLOC: u8 = 2;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// The allocator that serves this process, settled by its first allocation.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[inline]
fn choice() -> u8 {
    let chosen = CHOICE.load(Ordering::Acquire);
    if chosen != UNDECIDED {
        return chosen;
    }
    match CHOICE.compare_exchange(UNDECIDED, SYSTEM, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => SYSTEM,
        Err(chosen) => chosen,
    }
}

/// Whether mimalloc serves this process (which settles the choice if nothing did yet).
#[inline]
fn mimalloc_serves() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    return choice() == MIMALLOC;
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

/// Chooses mimalloc if nothing was allocated yet; whether mimalloc serves the process.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn choose_mimalloc() -> bool {
    match CHOICE.compare_exchange(UNDECIDED, MIMALLOC, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => true,
        Err(chosen) => chosen == MIMALLOC,
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
unsafe extern "C" {
    /// mimalloc's start-up, as its own constructor would run it (`src/init.c`).
    fn _mi_auto_process_init();
    /// Set once mimalloc has started (`src/init.c`).
    static _mi_process_is_initialized: bool;
}

/// Whether mimalloc has started in this process: only when it serves it, in a build without
/// its constructor (see the module docs).
pub fn mimalloc_started() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: a plain read of a `bool` that mimalloc sets once, on the main thread before
    // `main` (or in its own constructor).
    return unsafe { std::ptr::read_volatile(&raw const _mi_process_is_initialized) };
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

/// The name of the allocator that serves this process (for the start-up log).
pub fn name() -> &'static str {
    if mimalloc_serves() { "mimalloc" } else { "malloc" }
}

/// Whether these command-line arguments (without the program's name) serve HTTP: one of them
/// is `--http` or `--http=…`, before any `--`.
pub fn serves_http<'a>(args: impl IntoIterator<Item = &'a [u8]>) -> bool {
    args.into_iter().take_while(|arg| *arg != b"--").any(|arg| arg == b"--http" || arg.starts_with(b"--http="))
}

/// The global allocator of every server binary (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerAlloc;

/// Passes a `GlobalAlloc` method on to mimalloc when it serves the process, to `System` if not.
macro_rules! dispatch {
    ($method:ident($($arg:expr),*)) => {{
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        if mimalloc_serves() {
            // SAFETY: the caller's contract, passed on to the allocator that serves the process.
            return unsafe { mimalloc::MiMalloc.$method($($arg),*) };
        }
        // SAFETY: as above.
        unsafe { System.$method($($arg),*) }
    }};
}

// SAFETY (the whole impl): every method hands the request to one of two allocators that each
// uphold `GlobalAlloc`'s contract, and `mimalloc_serves()` gives the same answer for the life of
// the process from its first allocation on, so a block is freed or grown by the allocator that
// gave it.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for ServerAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        dispatch!(alloc(layout))
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        dispatch!(alloc_zeroed(layout))
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        dispatch!(dealloc(ptr, layout))
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        dispatch!(realloc(ptr, layout, new_size))
    }
}

/// Chooses the allocator from the command line, before `main`: glibc calls the functions of
/// `.init_array` with `argc`, `argv` and `envp`, as it does std's own argument set-up.
///
/// # Safety
///
/// `argv` holds `argc` pointers to NUL-terminated strings (or is null), as the C library passes
/// them: only the C library's start-up calls it (through [`server_allocator!`](crate::server_allocator)).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub unsafe extern "C" fn choose_at_start(
    argc: std::ffi::c_int,
    argv: *const *const std::ffi::c_char,
    _envp: *const *const std::ffi::c_char,
) {
    if argv.is_null() {
        return;
    }
    let count = usize::try_from(argc).unwrap_or(0);
    let args = (1..count).filter_map(|i| {
        // SAFETY: `argv` has `argc` entries (the caller's contract).
        let arg = unsafe { *argv.add(i) };
        // SAFETY: each entry is null or a NUL-terminated string (the caller's contract).
        (!arg.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(arg) }.to_bytes())
    });
    if serves_http(args) && choose_mimalloc() && !mimalloc_started() {
        // SAFETY: on the main thread, before `main` and before any other thread exists, as
        // mimalloc's constructor would call it.
        unsafe { _mi_auto_process_init() };
    }
}

/// Installs [`ServerAlloc`] as the binary's global allocator and, on Linux, [`choose_at_start`]
/// in its `.init_array`. Once, in each server's `main.rs`.
#[macro_export]
macro_rules! server_allocator {
    () => {
        #[global_allocator]
        static GLOBAL_ALLOCATOR: $crate::alloc::ServerAlloc = $crate::alloc::ServerAlloc;

        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        #[used]
        #[allow(unsafe_code)]
        #[unsafe(link_section = ".init_array")]
        static CHOOSE_ALLOCATOR: unsafe extern "C" fn(
            ::std::ffi::c_int,
            *const *const ::std::ffi::c_char,
            *const *const ::std::ffi::c_char,
        ) = $crate::alloc::choose_at_start;
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(args: &[&str]) -> bool {
        serves_http(args.iter().map(|a| a.as_bytes()))
    }

    #[test]
    fn only_the_http_flag_itself_chooses_http() {
        assert!(http(&["--http", "127.0.0.1:8080"]));
        assert!(http(&["--root", "/w", "--http=127.0.0.1:0", "--stateless"]));
        assert!(!http(&[]));
        assert!(!http(&["--root", "/w"]));
        assert!(!http(&["--http-token", "t", "--stateless"]));
        assert!(!http(&["--httpx", "--http_", "-http", "http", "--HTTP"]));
        assert!(!http(&["--", "--http", "127.0.0.1:1"]));
    }

    #[test]
    fn mimalloc_does_not_start_by_being_linked() {
        // This test binary links mimalloc (through `mimalloc_started`'s read of its flag, in the
        // same object as its constructor) and never chooses it: without the build's define
        // (`.cargo/config.toml`) its constructor would have started it before `main`.
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        assert!(!mimalloc_started(), "mimalloc started without being chosen: is MI_PRIM_HAS_PROCESS_ATTACH defined?");
    }

    #[test]
    #[allow(unsafe_code)]
    fn the_first_allocation_settles_the_choice_for_good() {
        // This test binary's own allocator is std's; the first allocation through
        // `ServerAlloc` here settles its choice, as a server's first allocation does. No
        // start-up function ran, so it is malloc, and stays so.
        let layout = Layout::from_size_align(100, 8).unwrap();
        // SAFETY: a non-zero size; the block is freed with the same layout below.
        let block = unsafe { ServerAlloc.alloc_zeroed(layout) };
        assert!(!block.is_null());
        // SAFETY: `block` has 100 bytes.
        assert!(unsafe { std::slice::from_raw_parts(block, 100) }.iter().all(|b| *b == 0));
        assert_eq!(name(), "malloc");
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        assert!(!choose_mimalloc(), "a choice settled by an allocation cannot change");
        // SAFETY: `block` came from `ServerAlloc` with `layout`.
        let grown = unsafe { ServerAlloc.realloc(block, layout, 4000) };
        assert!(!grown.is_null());
        // SAFETY: as above, with the size it was grown to.
        unsafe { ServerAlloc.dealloc(grown, Layout::from_size_align(4000, 8).unwrap()) };
        assert_eq!(name(), "malloc");
    }
}
