//! The guide (the system-prompt section that teaches a coding agent the tool
//! and the git workflow around it), offered as the MCP prompt `text_editor_guide`, and its
//! short form, the server's `instructions`.
//!
//! The text is the original guide's, with the tool name and the workspace root of this server in place
//! of `text_editor` and `/workspace/project`.

use std::sync::Arc;

use mcp_shared::{
    ServerExtension,
    reexports::rmcp::{
        ErrorData as McpError,
        model::{GetPromptResult, JsonObject, Prompt, PromptMessage, Role},
    },
};

use crate::workspace::EditorRoots;

/// The name of the prompt.
pub const PROMPT_NAME: &str = "text_editor_guide";

/// What `prompts/list` says about the prompt.
pub const PROMPT_DESCRIPTION: &str =
    "How to use the text editor tool and the git workflow around it: the system-prompt section for a coding agent.";

/// The guide, with `{tool}` and `{root}` to fill in.
const GUIDE: &str = r##"## Text Editor Tool

You have access to a text editor tool (`{tool}`) for viewing, creating, and editing files in the project workspace.

### Available Commands

#### 1. view - View file or directory contents

View the content of a file or list directory contents.

**Parameters:**
- `command`: "view" (required)
- `path`: File or directory path (required)
- `view_range`: [start_line, end_line] - Optional line range for files

**Example:**
```json
{"command": "view", "path": "{root}/src/main.py", "view_range": [1, 50]}
```

#### 2. create - Create a new file

Create a new file with specified content. The file must not already exist.

**Parameters:**
- `command`: "create" (required)
- `path`: Path for the new file (required)
- `file_text`: Content for the new file (required)

**Example:**
```json
{"command": "create", "path": "{root}/src/utils.py", "file_text": "def helper():\n    pass\n"}
```

#### 3. str_replace - Replace text in a file

Replace a specific string in a file. The old_str must match exactly one location in the file.

**Parameters:**
- `command`: "str_replace" (required)
- `path`: File path (required)
- `old_str`: Exact string to replace (required)
- `new_str`: Replacement string (required)

**Important:**
- The `old_str` must match EXACTLY one or more consecutive lines
- Include enough context to make the match unique
- Preserve leading/trailing whitespace exactly

**Example:**
```json
{"command": "str_replace", "path": "{root}/src/main.py", "old_str": "def old():\n    pass", "new_str": "def new():\n    return True"}
```

#### 4. insert - Insert text at a specific line

Insert new text at the specified line number.

**Parameters:**
- `command`: "insert" (required)
- `path`: File path (required)
- `insert_line`: Line number to insert at (required)
- `new_str`: Text to insert (required)

**Example:**
```json
{"command": "insert", "path": "{root}/src/main.py", "insert_line": 5, "new_str": "# New comment\n"}
```

#### 5. undo_edit - Undo the last edit

Revert the most recent edit to a file.

**Parameters:**
- `command`: "undo_edit" (required)
- `path`: File path (required)

**Example:**
```json
{"command": "undo_edit", "path": "{root}/src/main.py"}
```

### Best Practices

- **Before editing**: Always use `view` to understand the current file structure
- **Precise matching**: For `str_replace`, include enough surrounding context to ensure unique matching
- **Incremental edits**: Make small, focused changes rather than replacing large blocks
- **Verify changes**: After editing, use `view` to confirm the changes were applied correctly

## Git Workflow

After making file changes with the text editor, you must commit and push your changes using git commands.

### Standard Workflow

1. **Check status**: Review what files have been modified
   ```bash
   git status
   git diff
   ```

2. **Stage changes**: Add modified files to staging
   ```bash
   git add <modified_files>
   # or for all changes
   git add .
   ```

3. **Commit changes**: Create a commit with a descriptive message
   ```bash
   git commit -m "feat: description of changes"
   ```

4. **Push changes**: Push to the remote branch
   ```bash
   git push origin <branch_name>
   ```

### Handling Push Conflicts

If push fails due to remote changes:

1. **Pull with rebase**:
   ```bash
   git pull --rebase origin <branch_name>
   ```

2. **If conflicts occur**, resolve them using the text editor, then:
   ```bash
   git add <resolved_files>
   git rebase --continue
   ```

3. **Push again**:
   ```bash
   git push origin <branch_name>
   ```

### Important Notes

- Always commit and push your changes before completing the task
- Use meaningful commit messages that describe the changes
- If you encounter authentication errors, report them in your response
- The working directory is `{root}/`
"##;

/// The section on the workspace tools, with `{root}` to fill in; each tool's part is included
/// only when the server offers it.
const SEARCH_GUIDE: &str = r##"
## Finding things: `search_text`

Search file contents like ripgrep. Results are `ABSOLUTE_PATH:LINE:TEXT`, one per matching line.

**Parameters:**
- `pattern`: a regular expression (Rust regex syntax), or plain text with `literal: true` (required)
- `path`: a directory or file to search (default: the whole workspace)
- `glob`: only matching files, e.g. `*.rs` or `src/**/*.ts`
- `ignore_case`, `context` (lines around each match, 0-10), `limit` (default 100)

**Example:**
```json
{"pattern": "fn\s+parse_", "path": "{root}/src", "glob": "*.rs", "context": 2}
```
Then `view` the file at the line it names before editing it.
"##;

const FIND_GUIDE: &str = r##"
## Finding files: `find_files`

List files whose path matches a glob, most recently modified first.

**Parameters:**
- `pattern`: `**/*.rs`, `src/**/test_*.py`; without `/` (`*.md`) it matches names at any depth (required)
- `path`: the directory to look in (default: the whole workspace); `limit` (default 100)

**Example:**
```json
{"pattern": "**/*.toml", "path": "{root}"}
```
"##;

const FILES_GUIDE: &str = r##"
## Moving and deleting files: `move_file`, `delete_file`

`move_file` moves or renames one file (`source`, `destination` with the file name; parent
directories are created; an existing destination only with `overwrite: true`). `delete_file`
deletes one file (`path`). Neither works on directories or symbolic links. `{tool}`'s
`undo_edit` on the destination (move) or the path (delete) reverts them exactly.

**Example:**
```json
{"source": "{root}/src/old_name.py", "destination": "{root}/src/utils/new_name.py"}
```
"##;

/// The guide for a server whose tool is `tool`, whose first root is `root` and which offers
/// `tools` (see [`crate::TOOLS`]).
pub fn guide(tool: &str, root: &str, tools: &[String]) -> String {
    let offers = |name: &str| tools.iter().any(|t| t == name);
    let mut text = if offers("text_editor") { GUIDE.to_owned() } else { String::new() };
    if offers("search_text") {
        text.push_str(SEARCH_GUIDE);
    }
    if offers("find_files") {
        text.push_str(FIND_GUIDE);
    }
    if offers("move_file") || offers("delete_file") {
        text.push_str(FILES_GUIDE);
    }
    text.replace("{tool}", tool).replace("{root}", root.trim_end_matches('/'))
}

/// The server's `instructions`: the guide, shortened.
pub fn instructions(tool: &str, roots: &[String], tools: &[String]) -> String {
    let offers = |name: &str| tools.iter().any(|t| t == name);
    let mut extra = String::new();
    if offers("search_text") {
        extra.push_str(
            " `search_text` searches file contents like ripgrep (regex or `literal`, `glob`, `context`) and answers `PATH:LINE:TEXT` lines.",
        );
    }
    if offers("find_files") {
        extra.push_str(" `find_files` lists files matching a glob (`**/*.rs`), newest first.");
    }
    if offers("move_file") {
        extra.push_str(" `move_file` moves or renames a file.");
    }
    if offers("delete_file") {
        extra.push_str(" `delete_file` deletes a file.");
    }
    if offers("move_file") || offers("delete_file") {
        extra.push_str(" `undo_edit` reverts a move (on its destination) or a deletion.");
    }
    if offers("edit_file") {
        extra.push_str(
            " `edit_file` makes several str_replace edits to one file in one call, all or nothing (`dry_run` shows the diff), one undo step.",
        );
    }
    if offers("read_files") {
        extra.push_str(" `read_files` reads several files at once.");
    }
    if offers("list_tree") {
        extra.push_str(" `list_tree` shows a directory tree with file sizes.");
    }
    if !offers("text_editor") {
        let roots = roots.join(", ");
        return format!("Workspace tools over {roots}.{extra}");
    }
    let first = roots.first().map_or(".", String::as_str);
    let base = format!(
        "Claude's text editor tool as an MCP server. `{tool}` views, creates and edits text files inside {roots}: \
         `view` shows a file with line numbers (`view_range` [start, end] for part of it; -1 = to the end; [-20, -1] = the last 20 lines) or lists a directory two levels deep; \
         `create` makes a new file (never overwrites); \
         `str_replace` replaces `old_str`, which must match exactly one place (whitespace included; add surrounding lines to make it unique); \
         `insert` adds `new_str` as whole lines after line `insert_line` (0 = top; a trailing newline adds no empty line); \
         `undo_edit` reverts the last edit of a file. \
         Paths are absolute paths inside the root(s), or relative to {first}. \
         View a file before editing it and check the snippet after each edit. \
         The prompt `{PROMPT_NAME}` has the full guide, with the git workflow.",
        roots = roots.join(", ")
    );
    format!("{base}{extra}")
}

/// The prompt, and the use of the client's roots. The guide is written when a client asks for
/// it, not at start-up: few sessions do, and every session waits for the start.
pub struct Extension {
    tool: String,
    root: String,
    tools: Vec<String>,
}

impl Extension {
    /// The extension of a server whose tool is `tool`, working in `workspace`.
    pub fn new(workspace: Arc<EditorRoots>, tool: &str, tools: &[String]) -> Extension {
        let root = workspace
            .configured()
            .and_then(|sandbox| sandbox.roots().first())
            .map_or_else(|| crate::ROOT_FLAG.example.to_owned(), |p| p.display().to_string());
        Extension { tool: tool.to_owned(), root, tools: tools.to_vec() }
    }
}

impl ServerExtension for Extension {
    fn prompts(&self) -> Vec<Prompt> {
        vec![Prompt::new(PROMPT_NAME, Some(PROMPT_DESCRIPTION), None)]
    }

    fn get_prompt(&self, name: &str, _arguments: Option<JsonObject>) -> Result<GetPromptResult, McpError> {
        if name != PROMPT_NAME {
            return Err(McpError::invalid_params(
                format!("Unknown prompt `{name}`. The only prompt is `{PROMPT_NAME}`."),
                None,
            ));
        }
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, guide(&self.tool, &self.root, &self.tools))])
            .with_description(PROMPT_DESCRIPTION))
    }

    fn uses_client_roots(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_names_the_tool_and_the_root() {
        let text = guide("str_replace_based_edit_tool", "/w/proj/", &["text_editor".to_owned()]);
        assert!(text.starts_with("## Text Editor Tool\n"));
        assert!(text.contains("(`str_replace_based_edit_tool`)"));
        assert!(text.contains("\"path\": \"/w/proj/src/main.py\""));
        assert!(text.contains("The working directory is `/w/proj/`"));
        assert!(!text.contains("{root}") && !text.contains("{tool}"));
        let short = instructions("text_editor", &["/w/proj".into()], &["text_editor".to_owned()]);
        assert!(short.contains("text_editor_guide") && short.contains("/w/proj"));
    }
}
