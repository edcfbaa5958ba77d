//! `create`: a new file with `file_text`. Never overwrites (atomically, even against a
//! concurrent creator); makes missing parent directories inside the root; an empty
//! `file_text` makes an empty file. Undo deletes the file again.

use mcp_shared::{ErrorCode, sandbox::WriteOptions};

use crate::{
    editor::{Editor, Reply, Target, history_key},
    error::{self, ToolError},
    journal,
};

impl Editor {
    pub(crate) fn create(&self, t: &Target<'_>, file_text: Option<String>) -> Result<Reply, ToolError> {
        self.validate(t)?;
        // There is no file yet: any expected content is a conflict.
        crate::editor::check_sha256(t.if_sha256, None, t.shown)?;
        let text = file_text.ok_or_else(|| error::required("file_text", t.command))?;
        if text.len() as u64 > self.limits.max_file_size {
            return Err(ToolError::new(
                ErrorCode::FileTooLarge,
                format!(
                    "No file was created: `file_text` is {} bytes, more than this server's limit of {} bytes (--max-file-size). Create the file smaller, then add to it with `insert`.",
                    text.len(),
                    self.limits.max_file_size
                ),
            ));
        }
        let options = WriteOptions { create_parents: true, create_new: true, ..self.write_options() };
        t.still_wanted()?;
        let effect = journal::Effect::new(history_key(t.path), journal::Before::Absent, Some(text.as_bytes()));
        let mut change = journal::Change::new(t.origin, journal::Kind::Edit, vec![effect]);
        change.dirs = crate::journal::plan::missing_parents(t.sandbox, t.path).into_iter().map(Into::into).collect();
        let ((), id) = self.journalled(t.sandbox, change, &[&[]], None, || {
            t.sandbox.write_atomic(t.path, text.as_bytes(), &options).map_err(|e| t.sandbox_error(e))
        })?;
        if self.limits.views {
            let mut seen = crate::editor::Seen::new(None, Some(text.as_bytes()));
            seen.change = id;
            *t.seen.borrow_mut() = Some(seen);
        }
        Ok(Reply::text(format!("File created successfully at: {}", t.shown)))
    }
}

#[cfg(test)]
mod tests {
    use mcp_shared::sandbox::Sandbox;

    use crate::{Command, Editor, Limits, Request};

    fn create(
        editor: &Editor,
        sandbox: &Sandbox,
        path: &str,
        text: Option<&str>,
    ) -> Result<String, mcp_shared::ToolError> {
        let request = Request { file_text: text.map(str::to_owned), ..Request::default() };
        editor.run(sandbox, Command::Create, path, request).map(|r| r.text)
    }

    #[test]
    fn creates_with_parents_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new([dir.path()]).unwrap();
        let editor = Editor::new(Limits { fsync: false, ..Limits::default() });
        let path = format!("{}/a/b/new.txt", dir.path().display());
        assert_eq!(
            create(&editor, &sandbox, &path, Some("hi\n")).unwrap(),
            format!("File created successfully at: {path}")
        );
        assert_eq!(std::fs::read_to_string(dir.path().join("a/b/new.txt")).unwrap(), "hi\n");
        let e = create(&editor, &sandbox, &path, Some("other")).unwrap_err();
        assert_eq!(
            e.message,
            format!("File already exists at: {path}. Cannot overwrite files using command `create`.")
        );
        assert_eq!(std::fs::read_to_string(dir.path().join("a/b/new.txt")).unwrap(), "hi\n");
        // empty text is fine; a missing one is not
        assert!(create(&editor, &sandbox, "empty.txt", Some("")).is_ok());
        let e = create(&editor, &sandbox, "none.txt", None).unwrap_err();
        assert_eq!(e.message, "Parameter `file_text` is required for command: create");
        assert!(!dir.path().join("none.txt").exists());
    }
}
