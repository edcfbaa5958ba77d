//! What every binary's command line shares: the directory flags' value parser ([`DirValue`]),
//! and the one-line start-up error ([`exit`]). The flags themselves are clap's.

use std::path::PathBuf;

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

/// The `--tools` flag of a server that offers a subset of its tools on request. Flatten it into
/// the server's command line and parse that with [`parse`], which gives the flag the server's
/// tool names (its `tools!` `NAMES`): its help lists them and a name it lacks is clap's error.
#[derive(Debug, Clone, clap::Args)]
pub struct ToolsArg {
    /// The tools offered, comma-separated, or `all`.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "all")]
    pub tools: Vec<String>,
}

impl ToolsArg {
    /// The chosen tools among `names`, in `names`' order (`all`: every one).
    pub fn chosen(&self, names: &[&str]) -> Vec<String> {
        let all = self.tools.iter().any(|t| t == "all");
        names
            .iter()
            .filter(|name| all || self.tools.iter().any(|t| t == *name))
            .map(|name| (*name).to_owned())
            .collect()
    }
}

/// `T::parse()`, where `T`'s `--tools` flag (a [`ToolsArg`], if it has one) takes the names of
/// `tools` and `all`, and its help lists them.
pub fn parse<T: clap::Parser>(tools: &'static [&'static str]) -> T {
    let command = T::command().mut_args(|arg| {
        if arg.get_id() != "tools" {
            return arg;
        }
        arg.value_parser(clap::builder::PossibleValuesParser::new(tools.iter().copied().chain(["all"])))
    });
    let matches = command.get_matches();
    T::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

#[cfg(test)]
mod tests {
    use super::*;
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
