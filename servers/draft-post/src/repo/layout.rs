//! The repository's names: `projects/<project>/NN-slug/article.md`.

/// The longest project name, in characters.
pub const MAX_PROJECT_CHARS: usize = 100;

/// `NN-slug` → (NN, slug).
pub fn parse_dir_name(name: &str) -> Option<(u32, &str)> {
    let (digits, rest) = name.split_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, rest))
}

/// The directory name of article `number` with `slug`: the number zero-padded to 2 digits
/// (3 and more past 99).
pub fn dir_name(number: u32, slug: &str) -> String {
    format!("{number:02}-{slug}")
}

/// Checks a project name: one path segment of letters, digits, `-`, `_` and `.`, not starting
/// with `.`, at most [`MAX_PROJECT_CHARS`] characters.
pub fn validate_project(project: &str) -> Result<(), String> {
    let why = if project.is_empty() {
        "it is empty".to_owned()
    } else if project.chars().count() > MAX_PROJECT_CHARS {
        format!("it is longer than {MAX_PROJECT_CHARS} characters")
    } else if project == "." || project == ".." {
        "it is not a directory name".to_owned()
    } else if project.starts_with('.') {
        "it starts with `.` (hidden directories are not projects)".to_owned()
    } else if let Some(c) = project.chars().find(|&c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))) {
        format!("it contains {c:?}")
    } else {
        return Ok(());
    };
    Err(format!(
        "{project:?} is not a project name: {why}. A project is one directory name of letters, digits, `-`, `_` \
         and `.`, e.g. \"2026-01\"; omit it for the current year-month"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_names_pad_to_two_digits_and_grow() {
        assert_eq!(dir_name(1, "a"), "01-a");
        assert_eq!(dir_name(34, "mcp-article"), "34-mcp-article");
        assert_eq!(dir_name(99, "a"), "99-a");
        assert_eq!(dir_name(100, "a"), "100-a");
        assert_eq!(dir_name(1000, "a"), "1000-a");
        assert_eq!(parse_dir_name("07-x-y"), Some((7, "x-y")));
        assert_eq!(parse_dir_name("100-"), Some((100, "")));
        assert_eq!(parse_dir_name("x-1"), None);
        assert_eq!(parse_dir_name("-1"), None);
        assert_eq!(parse_dir_name("12"), None);
        assert_eq!(parse_dir_name("99999999999-x"), None);
    }

    #[test]
    fn project_names_are_one_plain_segment() {
        for ok in ["2026-01", "blog", "a.b_c-d", "日記", "v1.2"] {
            assert_eq!(validate_project(ok), Ok(()), "{ok}");
        }
        for bad in ["", ".", "..", "../x", "a/b", ".hidden", "a b", "a\\b", "x\0", &"y".repeat(101)] {
            let e = validate_project(bad).unwrap_err();
            assert!(e.contains("is not a project name") && e.contains("2026-01"), "{e}");
        }
    }
}
