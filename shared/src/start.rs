//! A server's entry point: [`main!`](crate::main), which on Linux runs the server's `main` after
//! std's runtime start-up less the one part of it a server does not need, its stack-overflow
//! handler.
//!
//! Before a Rust program's `main`, std's runtime (`lang_start`) does three things on Linux:
//!
//! 1. it makes sure stdin, stdout and stderr are open (one `poll`; `/dev/null` for a closed
//!    one, so that no file opened later becomes fd 1 and receives the JSON-RPC stream);
//! 2. it ignores SIGPIPE (a client that goes away is an `EPIPE` error, not a killed server);
//! 3. it installs its stack-overflow handler, for the message "thread 'main' has overflowed
//!    its stack". To know where the main thread's stack ends it reads and parses
//!    `/proc/self/maps` (glibc's `pthread_getattr_np`: ~41,000 instructions, 7 system calls),
//!    then maps an alternate signal stack and installs SIGSEGV and SIGBUS handlers (9 more).
//!    That is about a third of the instructions a do-nothing Rust program runs before it can
//!    answer, and std's own source calls those reads slow.
//!
//! [`run`] does 1 and 2 as std does them and leaves 3 out. The overflow is stopped either way:
//! on Linux std maps no guard page of its own and relies on the kernel's guard gap below the
//! stack, which stays. What goes is the message: a stack overflow (a bug in any case; serde_json
//! refuses JSON nested more than 128 deep) ends in SIGSEGV without it, and threads spawned later
//! get no alternate stack for it either. Then it runs the server's `main` as std runs it: `Ok`
//! exits with 0, an `Err` is reported by std's own `Termination` (`Error: {err:?}`) and exits with
//! 1, a panic (its message printed by the panic hook) exits with 101, and stdout is flushed on the
//! way out (`std::process::exit` runs std's clean-up). One more difference: std names the main
//! thread `main`; here it has no name, so a panic on it reads `thread '<unnamed>' panicked`.
//!
//! Other operating systems keep std's start-up: the macro gives them a plain `fn main`.

/// Runs `main` as a server's entry point (see the module docs) and exits with its code.
#[cfg(target_os = "linux")]
pub fn run<E: std::fmt::Debug>(main: fn() -> Result<(), E>) -> ! {
    sanitize_standard_fds();
    ignore_sigpipe();
    let code = match std::panic::catch_unwind(main) {
        // std's own report of what `main` returned (`Error: {err:?}` on stderr for an `Err`),
        // and the code std exits with: `ExitCode::FAILURE` is 1 on Unix.
        Ok(result) => {
            if std::process::Termination::report(result) == std::process::ExitCode::SUCCESS {
                0
            } else {
                1
            }
        }
        Err(payload) => {
            // Its message is already printed; dropping a payload can itself panic (std takes
            // the same care), and the process is about to exit.
            std::mem::forget(payload);
            101
        }
    };
    std::process::exit(code)
}

/// std's `sanitize_standard_fds`: `/dev/null` in place of a closed stdin, stdout or stderr.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn sanitize_standard_fds() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
    let mut devnull: libc::c_int = -1;
    let mut open_devnull = || {
        // SAFETY: `dup` of a descriptor this function opened; `open` of a NUL-terminated path.
        // Each takes the lowest free descriptor, which is the closed one being filled (lower
        // ones were checked first).
        unsafe {
            if devnull != -1 && libc::dup(devnull) != -1 {
                return;
            }
            devnull = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR, 0);
            if devnull == -1 {
                // As std: a standard stream that cannot be made safe is not served.
                libc::abort();
            }
        }
    };
    loop {
        // SAFETY: `fds` holds three initialised `pollfd`s; a zero timeout does not block.
        if unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } != -1 {
            for fd in fds {
                if fd.revents & libc::POLLNVAL != 0 {
                    open_devnull();
                }
            }
            return;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            // RLIMIT_NOFILE or a passing allocation failure: one descriptor at a time.
            Some(libc::EINVAL | libc::EAGAIN | libc::ENOMEM) => break,
            // SAFETY: ends the process; as std.
            _ => unsafe { libc::abort() },
        }
    }
    for fd in 0..3 {
        // SAFETY: `F_GETFD` only reads the descriptor's flags.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
        {
            open_devnull();
        }
    }
}

/// SIGPIPE ignored, as std does: a write to a closed pipe fails with `EPIPE` instead.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn ignore_sigpipe() {
    // SAFETY: sets the disposition of one signal to "ignore", before any other thread exists.
    if unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) } == libc::SIG_ERR {
        // As std, which asserts it: a server that a client's departure could kill is not run.
        // SAFETY: ends the process.
        unsafe { libc::abort() };
    }
}

/// A server binary's entry point: `mcp_shared::main!(run);` with `fn run() -> Result<(), E>`
/// (`E: Debug`, e.g. `anyhow::Result<()>`), in a `main.rs` that starts with
/// `#![cfg_attr(all(target_os = "linux", not(test)), no_main)]`.
///
/// On Linux it defines the C `main` that calls [`run`](crate::start::run) (see the module
/// docs); elsewhere, and in the crate's unit tests, a plain `fn main` that std starts.
#[macro_export]
macro_rules! main {
    ($run:path) => {
        /// The entry point: the server's `main` without std's stack-overflow handler set-up
        /// (`mcp_shared::start`).
        #[cfg(all(target_os = "linux", not(test)))]
        #[allow(unsafe_code)]
        #[unsafe(no_mangle)]
        extern "C" fn main(_argc: ::std::ffi::c_int, _argv: *const *const ::std::ffi::c_char) -> ::std::ffi::c_int {
            $crate::start::run($run)
        }

        #[cfg(any(not(target_os = "linux"), test))]
        fn main() -> ::std::process::ExitCode {
            ::std::process::Termination::report($run())
        }
    };
}
