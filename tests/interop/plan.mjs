// What the interop drivers do: for every server, how to start it, the tools it must list, and for
// every tool at least one call that succeeds and one that fails. A failing call names the code the
// server must put in structuredContent.error.code and words its message (the text block) must hold.
import { join } from 'node:path';

/** The plan for binaries in `binDir` and the fixtures of run.mjs's `setUp`. */
export function buildPlan(binDir, dirs) {
    const manuscript = join(dirs.drafts, 'interop.md');
    const bridgeEnv = { XDG_RUNTIME_DIR: dirs.xdg };
    return [
        {
            name: 'sample-tool',
            command: join(binDir, 'mcp-server-sample-tool'),
            args: [],
            tools: ['hoge', 'countdown'],
            calls: [
                { tool: 'hoge', args: { action: 'calc', args: { x: 1, y: 2 } }, structured: { value: 3 } },
                { tool: 'hoge', args: { action: 'mul', args: { x: 1, y: 2 } }, code: 'UNKNOWN_ACTION', says: ['"mul"', 'calc'] },
                { tool: 'hoge', args: { action: 'calc', args: { x: 'a', y: 2 } }, code: 'INVALID_ARGS', says: ['args.x'] },
                { tool: 'countdown', args: { seconds: 1 }, structured: { seconds: 1 } },
                { tool: 'countdown', args: { seconds: 0 }, code: 'INVALID_ARGS', says: ['seconds'] },
            ],
        },
        {
            name: 'text-editor',
            command: join(binDir, 'mcp-server-text-editor'),
            args: ['--root', dirs.project],
            tools: ['text_editor', 'search_text', 'find_files', 'move_file', 'delete_file', 'edit_file', 'read_files', 'list_tree', 'list_changes', 'revert_changes'],
            calls: [
                { tool: 'read_files', args: { paths: [join(dirs.project, 'src/main.rs'), 'src/nope.rs'] }, says: ['println!', 'Error reading src/nope.rs (NOT_FOUND)'] },
                { tool: 'list_tree', args: {}, says: ['src/', 'main.rs ('] },
                { tool: 'edit_file', args: { path: join(dirs.project, 'src/main.rs'), edits: [{ old_str: 'println', new_str: 'print' }], dry_run: true }, says: ['Dry run: nothing was written', '+'] },
                { tool: 'edit_file', args: { path: join(dirs.project, 'src/main.rs'), edits: [{ old_str: 'goodbye', new_str: 'x' }] }, code: 'NO_MATCH', says: ['edits[0]'] },
                { tool: 'search_text', args: { pattern: 'println' }, says: ['main.rs:'] },
                { tool: 'search_text', args: { pattern: 'fn(' }, code: 'INVALID_ARGS', says: ['literal: true'] },
                { tool: 'find_files', args: { pattern: '**/*.rs' }, says: ['main.rs'] },
                { tool: 'find_files', args: { pattern: '*', path: dirs.outside }, code: 'OUTSIDE_ROOT', says: ['outside'] },
                { tool: 'move_file', args: { source: join(dirs.project, 'src/nope.rs'), destination: join(dirs.project, 'src/x.rs') }, code: 'NOT_FOUND', says: ['nope.rs'] },
                { tool: 'delete_file', args: { path: dirs.outside }, code: 'OUTSIDE_ROOT', says: ['outside'] },
                { tool: 'text_editor', args: { command: 'view', path: join(dirs.project, 'src/main.rs') }, says: ['println!'] },
                { tool: 'text_editor', args: { command: 'view', path: join(dirs.project, 'src/nope.rs') }, code: 'NOT_FOUND', says: ['nope.rs'] },
                {
                    tool: 'text_editor',
                    args: { command: 'str_replace', path: join(dirs.project, 'src/main.rs'), old_str: 'goodbye', new_str: 'x' },
                    code: 'NO_MATCH',
                    says: ['goodbye'],
                },
                { tool: 'text_editor', args: { command: 'view', path: dirs.outside }, code: 'OUTSIDE_ROOT', says: ['outside.txt'] },
                // Nothing above changed a file: the journal has no change to list or revert.
                { tool: 'list_changes', args: {}, says: ['after change 0'] },
                { tool: 'list_changes', args: { since: 'yesterday' }, code: 'INVALID_ARGS', says: ['since'] },
                { tool: 'revert_changes', args: { to: 0, dry_run: true }, says: ['Nothing to revert'] },
                { tool: 'revert_changes', args: { to: 999999999999 }, code: 'INVALID_ARGS', says: ['no change 999999999999'] },
            ],
        },
        {
            name: 'draft-post',
            command: join(binDir, 'mcp-server-draft-post'),
            args: ['--repo', dirs.repo, '--source-root', dirs.drafts],
            tools: ['draft_post', 'list_posts'],
            calls: [
                // Run by three clients in turn over the same repository: created, then unchanged.
                { tool: 'draft_post', args: { source: manuscript, project: '2026-01' }, says: ['interop'] },
                { tool: 'draft_post', args: { source: '/client/drafts/remote.md', content: '# Remote\n', project: '2026-01', dry_run: true }, says: ['dry run, nothing was written'] },
                { tool: 'draft_post', args: { source: join(dirs.drafts, 'missing.md') }, code: 'NOT_FOUND', says: ['missing.md'] },
                { tool: 'draft_post', args: { source: manuscript, project: '../up' }, code: 'INVALID_ARGS', says: ['project'] },
                { tool: 'list_posts', args: { project: '2026-01' }, says: ['first'] },
                { tool: 'list_posts', args: { project: '../up' }, code: 'INVALID_ARGS', says: ['project'] },
            ],
        },
        {
            name: 'ide-bridge',
            command: join(binDir, 'mcp-server-ide-bridge'),
            args: [],
            cwd: dirs.workspace,
            env: bridgeEnv,
            tools: [
                'list_files',
                'read_file',
                'write_file',
                'get_diagnostics',
                'get_open_editors',
                'get_selection',
                'open_file',
                'save_file',
                'find_definition',
                'find_references',
                'describe_symbol',
                'list_symbols',
                'rename_symbol',
                'find_implementations',
                'call_hierarchy',
                'type_hierarchy',
                'signature_help',
                'code_actions',
                'apply_code_action',
                'format',
                'open_diff',
                'close_diffs',
                'ide_status',
            ],
            calls: [
                { tool: 'list_files', args: { recursive: true }, says: ['README.md'] },
                { tool: 'list_files', args: { path: 'no/such/dir' }, code: 'NOT_FOUND', says: ['no/such/dir'] },
                { tool: 'read_file', args: { path: 'README.md' }, says: ['# demo'] },
                { tool: 'read_file', args: { path: '../outside.txt' }, code: 'ACCESS_DENIED', says: ['../outside.txt'] },
                { tool: 'write_file', args: { path: 'notes/todo.md', content: '- interop\n' }, structured: { path: 'notes/todo.md', bytes: 10 } },
                { tool: 'write_file', args: { path: '../escape.md', content: 'x' }, code: 'ACCESS_DENIED', says: ['../escape.md'] },
                // The headless host has no editor: no tabs, no selection; no diagnostics, said plainly.
                { tool: 'get_open_editors', args: {}, structured: { editors: [], outside: 0 } },
                { tool: 'get_selection', args: {}, structured: { active: false }, says: ['No workspace file is active'] },
                { tool: 'get_diagnostics', args: { path: 'README.md' }, code: 'UNAVAILABLE', says: ['does not support get_diagnostics'] },
                { tool: 'open_file', args: { path: 'README.md', line: 0 }, code: 'INVALID_ARGS', says: ['line'] },
                // Version 3: the headless host has no language server and no window; it says what to
                // install. Bad arguments are refused by the bridge before any host is asked.
                { tool: 'find_references', args: { path: 'README.md', line: 1, symbol: 'demo' }, code: 'UNAVAILABLE', says: ['does not support find_references', 'extension 0.3 or later'] },
                { tool: 'open_diff', args: { path: 'README.md', new_text: '# changed\n' }, code: 'UNAVAILABLE', says: ['does not support open_diff', 'headless'] },
                { tool: 'call_hierarchy', args: { path: 'README.md', line: 1, symbol: 'demo', direction: 'incoming' }, code: 'UNAVAILABLE', says: ['does not support call_hierarchy', 'extension 0.4 or later'] },
                { tool: 'code_actions', args: { path: 'README.md', line: 1 }, code: 'UNAVAILABLE', says: ['does not support code_actions', 'extension 0.4 or later'] },
                { tool: 'format', args: { path: 'README.md', apply: true }, code: 'UNAVAILABLE', says: ['does not support format', 'headless'] },
                { tool: 'rename_symbol', args: { path: 'README.md', line: 1, symbol: 'demo', new_name: 'two words\n' }, code: 'INVALID_ARGS', says: ['new_name'] },
                { tool: 'list_symbols', args: {}, code: 'INVALID_ARGS', says: ['exactly one of `path`'] },
                { tool: 'ide_status', args: {}, structured: { connected: true, protocol: 'mcp-suite' }, says: ['ide-bridge-host'] },
            ],
        },
    ];
}
