//! The guide (the system-prompt section that teaches a coding agent the tool
//! and the git workflow around it), offered as the MCP prompt `text_editor_guide`, and its
//! short form, the server's `instructions`.
//!
//! The text is the original guide's, with the tool name and the workspace root of this server in place
//! of `text_editor` and `/workspace/project`.

use std::{borrow::Cow, sync::Arc};

use mcp_shared::{
    ServerExtension, ToolRegistry,
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
pub const TEXT_EDITOR: &str = r##"## Text Editor Tool

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

/// The guide: each offered tool's section ([`Tool::guide`](mcp_shared::Tool::guide)), in
/// `tools/list` order, with `{tool}` (the text editor tool's name) and `{root}` filled in.
pub fn guide(sections: &[Cow<'static, str>], tool: &str, root: &str) -> String {
    sections.concat().replace("{tool}", tool).replace("{root}", root.trim_end_matches('/'))
}

/// The server's `instructions`: where it works, then what each offered tool's
/// [`Tool::instructions`](mcp_shared::Tool::instructions) says, and the prompt.
pub fn instructions(registry: &ToolRegistry, roots: &[String]) -> String {
    let first = roots.first().map_or(".", String::as_str);
    let mut text = format!(
        "Text files and the workspace, inside {}: paths are absolute paths inside the root(s), or relative to {first}.",
        roots.join(", ")
    );
    for sentence in registry.tools().filter_map(|tool| tool.instructions()) {
        text.push(' ');
        text.push_str(&sentence);
    }
    if registry.tools().any(|tool| tool.guide().is_some()) {
        text.push_str(&format!(" The prompt `{PROMPT_NAME}` has the full guide, with the git workflow."));
    }
    text
}

/// The prompt, and the use of the client's roots. The guide is written when a client asks for
/// it, not at start-up: few sessions do, and every session waits for the start.
pub struct Extension {
    tool: String,
    root: String,
    sections: Vec<Cow<'static, str>>,
}

impl Extension {
    /// The extension of a server whose tool is `tool`, working in `workspace`, offering the
    /// tools of `registry`.
    pub fn new(workspace: Arc<EditorRoots>, tool: &str, registry: &ToolRegistry) -> Extension {
        let root = workspace
            .configured()
            .and_then(|sandbox| sandbox.roots().first())
            .map_or_else(|| crate::ROOT_FLAG.example.to_owned(), |p| p.display().to_string());
        let sections = registry.tools().filter_map(|tool| tool.guide()).collect();
        Extension { tool: tool.to_owned(), root, sections }
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
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            guide(&self.sections, &self.tool, &self.root),
        )])
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
        let text = guide(&[TEXT_EDITOR.into()], "str_replace_based_edit_tool", "/w/proj/");
        assert!(text.starts_with("## Text Editor Tool\n"));
        assert!(text.contains("(`str_replace_based_edit_tool`)"));
        assert!(text.contains("\"path\": \"/w/proj/src/main.py\""));
        assert!(text.contains("The working directory is `/w/proj/`"));
        assert!(!text.contains("{root}") && !text.contains("{tool}"));
    }
}
