//! The command line: clap's parser, skipped when there is nothing for it to parse, or only the
//! server's directory flag.

use std::{collections::BTreeSet, ffi::OsString, fmt::Debug, path::PathBuf};

/// A binary's end: success, or its start-up error said on one line of stderr (`error: what went
/// wrong: why`, each cause once, without a backtrace whatever `RUST_BACKTRACE` says: a user's
/// mistake is not a crash), and exit code 1. Every binary's `main` ends here.
pub fn exit<E: Into<Box<dyn std::error::Error + Send + Sync>>>(result: Result<(), E>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            let error: Box<dyn std::error::Error + Send + Sync> = error.into();
            // The one line a user reads when the server would not start: not a log event (the
            // log may be filtered out, or not set up yet when the flags are wrong).
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "{}", one_line(error.as_ref()));
            std::process::ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, each cause once: one whose text the line already holds
/// (an error that repeats its source in its own message) is not said again.
pub fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        source = cause.source();
    }
    format!("error: {}", line.trim_end())
}

/// The value parser of every directory flag (`--root`, `--repo`, `--source-root`,
/// `--workspace`): the path as given, with a leading `~` or `~/` expanded to the home directory.
/// MCP clients start servers without a shell, so `"args": ["--root", "~/project"]` in a client's
/// configuration reaches the server as written.
#[derive(Debug, Clone, Copy)]
pub struct DirValue;

impl clap::builder::TypedValueParser for DirValue {
    type Value = PathBuf;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<PathBuf, clap::Error> {
        expand_home(value, std::env::home_dir()).map_err(|message| {
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{message}\n")).with_cmd(cmd)
        })
    }
}

/// `value` with a leading `~` (alone, or before `/`, or `\\` on Windows) replaced by `home`;
/// any other value (`~user/…`, a value that is not UTF-8) as given.
pub fn expand_home(value: &std::ffi::OsStr, home: Option<PathBuf>) -> Result<PathBuf, String> {
    let Some(text) = value.to_str() else {
        return Ok(PathBuf::from(value));
    };
    let rest = if text == "~" {
        Some("")
    } else {
        text.strip_prefix("~/").or_else(|| if cfg!(windows) { text.strip_prefix("~\\") } else { None })
    };
    let Some(rest) = rest else {
        return Ok(PathBuf::from(value));
    };
    let home = home.filter(|h| !h.as_os_str().is_empty()).ok_or_else(|| {
        format!("`{text}` starts with `~`, but the home directory is not known (HOME is not set): give the full path")
    })?;
    Ok(if rest.is_empty() { home } else { home.join(rest) })
}

/// `T::parse()`, except that a start with no arguments and none of `env` set takes
/// `T::default()` at once.
///
/// clap builds its whole parser (every flag with its help text, then its consistency checks)
/// even to parse nothing: about 60 µs and 19 page faults of a stdio server's 0.8 ms start, and
/// most clients start a server with no flags. `env` must name every environment variable `T`
/// reads, and `T::default()` must be what clap makes of an empty command line: each server's
/// tests check both with [`check_defaults`].
pub fn parse<T: clap::Parser + Default>(env: &[&str]) -> T {
    parse_from(std::env::args_os(), env, |name| std::env::var_os(name).is_some())
}

fn parse_from<T: clap::Parser + Default>(
    args: impl IntoIterator<Item = OsString>,
    env: &[&str],
    is_set: impl Fn(&str) -> bool,
) -> T {
    let mut args = args.into_iter();
    let program = args.next();
    match args.next() {
        None if !env.iter().any(|name| is_set(name)) => T::default(),
        first => T::parse_from(program.into_iter().chain(first).chain(args)),
    }
}

/// A server's flag that takes one directory (`--root`, `--repo`, `--workspace`): the one flag
/// most client configurations pass, and often the only one.
pub struct DirectoryArg<T> {
    /// The flag's long name, without the dashes (`root`).
    pub long: &'static str,
    /// Puts the directory into the parsed command line, as clap does for one occurrence.
    pub set: fn(&mut T, PathBuf),
}

// Copy whatever `T` is (a derive would ask `T: Copy`).
impl<T> Clone for DirectoryArg<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DirectoryArg<T> {}

/// [`parse`], except that a command line that is only `--<long> DIR` or `--<long>=DIR` (once,
/// with none of `env` set) also skips clap: `T::default()` with `dir.set` applied.
///
/// The fast path takes only what clap takes the same way: a `DIR` that is not empty and does
/// not start with `-` (clap would read `--root -x` as a missing value and `--root=` as an empty
/// one, and refuse both). Anything else, `--help` and every mistake included, goes to clap as
/// before. Each server's tests compare both parsers over many command lines with
/// [`check_directory_arg`].
pub fn parse_with_directory<T: clap::Parser + Default>(env: &[&str], dir: DirectoryArg<T>) -> T {
    let args: Vec<OsString> = std::env::args_os().collect();
    let is_set = |name: &str| std::env::var_os(name).is_some();
    match directory_only(&args, env, dir, is_set) {
        Some(parsed) => parsed,
        None => parse_from(args, env, is_set),
    }
}

/// The command line parsed without clap, when it is only `dir`'s flag with one plain value.
fn directory_only<T: Default>(
    args: &[OsString],
    env: &[&str],
    dir: DirectoryArg<T>,
    is_set: impl Fn(&str) -> bool,
) -> Option<T> {
    if env.iter().any(|name| is_set(name)) {
        return None;
    }
    let value = match args {
        [_, flag, value] if flag.to_str()?.strip_prefix("--")? == dir.long => value.clone(),
        [_, flag] => {
            let (name, value) = flag.to_str()?.strip_prefix("--")?.split_once('=')?;
            if name != dir.long {
                return None;
            }
            OsString::from(value)
        }
        _ => return None,
    };
    // A value starting with `-` is clap's to refuse; one starting with `~` clap's to expand.
    if value.is_empty() || value.as_encoded_bytes().starts_with(b"-") || value.as_encoded_bytes().starts_with(b"~") {
        return None;
    }
    let mut parsed = T::default();
    (dir.set)(&mut parsed, PathBuf::from(value));
    Some(parsed)
}

/// Checks that [`parse_with_directory`]'s fast path gives what clap gives (compared by their
/// `Debug` text) on every command line of up to three words built from a set of tricky ones
/// (the flag with and without `=`, empty and dashed values, other flags, `--`, prefixes of
/// the flag's name), and that it takes the plain `--<long> DIR` and `--<long>=DIR`.
pub fn check_directory_arg<T: clap::Parser + Default + Debug>(dir: DirectoryArg<T>) -> Result<(), String> {
    let long = dir.long;
    let words: Vec<String> = vec![
        format!("--{long}"),
        format!("--{long}="),
        format!("--{long}=dir"),
        format!("--{long}=a=b"),
        format!("--{long}=-x"),
        format!("--{long}s"),
        format!("--{}", long.get(..long.len().saturating_sub(1)).unwrap_or(long)),
        format!("-{long}"),
        "dir".to_owned(),
        "/a b/c".to_owned(),
        "-".to_owned(),
        "-x".to_owned(),
        "--".to_owned(),
        "--help".to_owned(),
        "--stateless".to_owned(),
        String::new(),
    ];
    // Every line of up to three words: 16 + 16² + 16³ of them.
    let mut lines: Vec<Vec<&str>> = vec![Vec::new()];
    let mut last: Vec<Vec<&str>> = vec![Vec::new()];
    for _ in 0..3 {
        last =
            last.iter().flat_map(|line| words.iter().map(move |word| [&line[..], &[word.as_str()]].concat())).collect();
        lines.extend(last.iter().cloned());
    }
    let command_line = |words: &[&str]| -> Vec<OsString> {
        std::iter::once("server").chain(words.iter().copied()).map(OsString::from).collect()
    };
    let mut fast = 0;
    for line in &lines {
        let args = command_line(line);
        let Some(parsed) = directory_only::<T>(&args, &[], dir, |_| false) else { continue };
        fast += 1;
        let by_clap = T::try_parse_from(&args)
            .map_err(|error| format!("{line:?}: taken without clap, but clap refuses it: {error}"))?;
        let (parsed, by_clap) = (format!("{parsed:?}"), format!("{by_clap:?}"));
        if parsed != by_clap {
            return Err(format!("{line:?}: without clap\n  {parsed}\nbut clap makes\n  {by_clap}"));
        }
    }
    let (flag, joined) = (format!("--{long}"), format!("--{long}=/srv/project"));
    for plain in [vec![flag.as_str(), "/srv/project"], vec![joined.as_str()]] {
        if directory_only::<T>(&command_line(&plain), &[], dir, |_| false).is_none() {
            return Err(format!("{plain:?} is not taken without clap"));
        }
    }
    if fast < 4 {
        return Err(format!("only {fast} command lines were taken without clap"));
    }
    Ok(())
}

/// Checks that `T::default()` is what clap makes of an empty command line (compared by their
/// `Debug` text), and that `env` names exactly the environment variables `T`'s flags read.
pub fn check_defaults<T: clap::Parser + Default + Debug>(env: &[&str]) -> Result<(), String> {
    let command = T::command();
    let read: BTreeSet<String> = command
        .get_arguments()
        .filter_map(|arg| arg.get_env())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    let listed: BTreeSet<String> = env.iter().map(|name| (*name).to_owned()).collect();
    if read != listed {
        return Err(format!("the flags read the environment variables {read:?}, the list names {listed:?}"));
    }
    if let Some(set) = env.iter().find(|name| std::env::var_os(name).is_some()) {
        return Err(format!("{set} is set in this test's environment: unset it to compare the defaults"));
    }
    let name = command.get_name().to_owned();
    let parsed = T::try_parse_from([name]).map_err(|error| format!("an empty command line is refused: {error}"))?;
    let (parsed, default) = (format!("{parsed:?}"), format!("{:?}", T::default()));
    if parsed != default {
        return Err(format!("clap's defaults\n  {parsed}\ndiffer from Default\n  {default}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TransportArgs;

    #[derive(Debug, Default, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        transport: TransportArgs,
    }

    #[test]
    fn the_transport_flags_default_as_clap_does() {
        check_defaults::<Cli>(&["MCP_HTTP_TOKEN"]).unwrap();
    }

    #[test]
    fn a_wrong_list_of_variables_or_a_wrong_default_is_reported() {
        let error = check_defaults::<Cli>(&[]).unwrap_err();
        assert!(error.contains("MCP_HTTP_TOKEN"), "{error}");

        #[derive(Debug, clap::Parser)]
        struct Drifted {
            #[arg(long, default_value_t = 3)]
            n: u32,
        }
        impl Default for Drifted {
            fn default() -> Self {
                Drifted { n: 4 }
            }
        }
        let error = check_defaults::<Drifted>(&[]).unwrap_err();
        assert!(error.contains("differ from Default"), "{error}");
    }

    #[derive(Debug, Default, clap::Parser)]
    struct Rooted {
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        #[command(flatten)]
        transport: TransportArgs,
    }

    const ROOT: DirectoryArg<Rooted> = DirectoryArg { long: "root", set: |cli, dir| cli.roots = vec![dir] };

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_directory_flag_alone_is_parsed_as_clap_parses_it() {
        check_directory_arg(ROOT).unwrap();
        let fast = |args: &[&str]| directory_only(&os(args), &["MCP_HTTP_TOKEN"], ROOT, |_| false);
        assert_eq!(fast(&["x", "--root", "/srv/p"]).unwrap().roots, [PathBuf::from("/srv/p")]);
        assert_eq!(fast(&["x", "--root=/srv/a=b"]).unwrap().roots, [PathBuf::from("/srv/a=b")]);
        for clap_s in [
            &["x"][..],
            &["x", "--root"],
            &["x", "--root", ""],
            &["x", "--root="],
            &["x", "--root", "-x"],
            &["x", "--root=-x"],
            &["x", "--root", "a", "--root", "b"],
            &["x", "--root", "a", "--stateless"],
            &["x", "--roots", "a"],
            &["x", "--help"],
        ] {
            assert!(fast(clap_s).is_none(), "{clap_s:?} must go to clap");
        }
        let set = directory_only(&os(&["x", "--root", "a"]), &["MCP_HTTP_TOKEN"], ROOT, |_| true);
        assert!(set.is_none(), "a set variable must send the command line through clap");
    }

    #[test]
    fn a_fast_path_that_differs_from_clap_is_reported() {
        let wrong = DirectoryArg::<Rooted> { long: "root", set: |cli, dir| cli.roots = vec![dir.clone(), dir] };
        let error = check_directory_arg(wrong).unwrap_err();
        assert!(error.contains("but clap makes"), "{error}");
        // A flag clap does not know: the fast path would take what clap refuses.
        let unknown = DirectoryArg::<Rooted> { long: "repo", set: |cli, dir| cli.roots = vec![dir] };
        let error = check_directory_arg(unknown).unwrap_err();
        assert!(error.contains("clap refuses it"), "{error}");
    }

    #[test]
    fn arguments_or_a_set_variable_go_through_clap() {
        let cli: Cli = parse_from(os(&["x"]), &["MCP_HTTP_TOKEN"], |_| false);
        assert!(!cli.transport.stateless);
        let cli: Cli = parse_from(os(&["x", "--stateless"]), &["MCP_HTTP_TOKEN"], |_| false);
        assert!(cli.transport.stateless);
        #[derive(Debug, clap::Parser)]
        struct Counted {
            #[arg(long, default_value_t = 1)]
            n: u32,
        }
        impl Default for Counted {
            fn default() -> Self {
                Counted { n: 99 }
            }
        }
        let counted: Counted = parse_from(os(&["x"]), &["SOME_VAR"], |name| name == "SOME_VAR");
        assert_eq!(counted.n, 1, "a set variable must send the command line through clap");
        let counted: Counted = parse_from(os(&["x"]), &["SOME_VAR"], |_| false);
        assert_eq!(counted.n, 99);
    }

    #[test]
    fn a_leading_tilde_is_the_home_directory() {
        use std::ffi::OsStr;
        let home = Some(PathBuf::from("/home/u"));
        for (given, expanded) in [
            ("~", "/home/u"),
            ("~/src/my-project", "/home/u/src/my-project"),
            ("/abs/~/x", "/abs/~/x"),
            ("rel/dir", "rel/dir"),
            ("~user/x", "~user/x"),
            ("~x", "~x"),
        ] {
            assert_eq!(expand_home(OsStr::new(given), home.clone()).unwrap(), PathBuf::from(expanded), "{given}");
        }
        let error = expand_home(OsStr::new("~/x"), None).unwrap_err();
        assert!(error.contains("HOME is not set") && error.contains("full path"), "{error}");
    }

    #[test]
    fn a_start_up_error_is_one_line_with_each_cause_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot listen on 127.0.0.1:80: {source}")]
        struct Repeats {
            #[source]
            source: std::io::Error,
        }
        #[derive(Debug, thiserror::Error)]
        #[error("invalid --root")]
        struct Wraps {
            #[source]
            source: std::io::Error,
        }
        let denied = || std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied");
        assert_eq!(one_line(&Repeats { source: denied() }), "error: cannot listen on 127.0.0.1:80: permission denied");
        assert_eq!(one_line(&Wraps { source: denied() }), "error: invalid --root: permission denied");
    }
}
