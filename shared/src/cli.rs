//! The command line: clap's parser, skipped when there is nothing for it to parse.

use std::{collections::BTreeSet, ffi::OsString, fmt::Debug};

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

    #[test]
    fn arguments_or_a_set_variable_go_through_clap() {
        let os = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
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
}
