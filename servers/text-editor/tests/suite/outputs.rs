//! Every success text, byte for byte as Anthropic's reference implementation writes it.

use serde_json::json;

use super::{Server, numbered};

#[test]
fn view_of_a_file_numbers_every_line_including_the_one_after_the_final_newline() {
    let mut s = Server::start();
    s.write("f.py", "def f():\n\treturn 1\n");
    let path = s.path("f.py");
    let text = s.view("f.py");
    assert_eq!(
        text,
        format!("Here's the result of running `cat -n` on {path}:\n{}\n", numbered(&["def f():", "\treturn 1", ""], 1))
    );
    // tabs stay tabs (a deliberate difference: the reference expands them)
    assert!(text.contains("\t\treturn 1"));
}

#[test]
fn view_range_numbers_from_its_start_and_minus_one_means_to_the_end() {
    let mut s = Server::start();
    let content: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    s.write("f.txt", &content);
    let path = s.path("f.txt");
    let text = s.ok(json!({"command": "view", "path": path, "view_range": [5, 7]}));
    assert_eq!(
        text,
        format!("Here's the result of running `cat -n` on {path}:\n{}\n", numbered(&["line 5", "line 6", "line 7"], 5))
    );
    let text = s.ok(json!({"command": "view", "path": path, "view_range": [19, -1]}));
    assert_eq!(
        text,
        format!("Here's the result of running `cat -n` on {path}:\n{}\n", numbered(&["line 19", "line 20", ""], 19))
    );
    // an empty list is no range
    let text = s.ok(json!({"command": "view", "path": path, "view_range": []}));
    assert!(text.contains("    20\tline 20\n    21\t\n"));
}

#[test]
fn long_output_is_clipped_with_the_reference_note() {
    let mut s = Server::with_args(&["--max-output-chars", "10"]);
    s.write("f.txt", "0123456789abcdef\nsecond\n");
    let path = s.path("f.txt");
    let text = s.view("f.txt");
    assert_eq!(
        text,
        format!(
            "Here's the result of running `cat -n` on {path}:\n     1\t0123456789<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>\n"
        )
    );
    // the default limit is 16000 characters
    let mut s = Server::start();
    s.write("big.txt", "é".repeat(20_000));
    let text = s.view("big.txt");
    assert!(text.contains(&format!("\t{}<response clipped><NOTE>", "é".repeat(16_000))));
}

#[test]
fn view_of_a_directory_lists_two_levels_sorted_without_hidden_or_ignored_entries() {
    let mut s = Server::start();
    s.write("b.txt", "");
    s.write("a/one.txt", "");
    s.write("a/deep/two.txt", "");
    s.write("a/deep/deeper/three.txt", "");
    s.write(".hidden/x.txt", "");
    s.write(".env", "");
    s.write("target/out.bin", "");
    s.write("keep.log", "");
    s.write("skip.log", "");
    s.write(".gitignore", "target/\nskip.log\n");
    let root = s.path("");
    let text = s.view("");
    assert_eq!(
        text,
        format!(
            "Here's the files and directories up to 2 levels deep in {root}, excluding hidden items:\n{root}/\n{root}/a/\n{root}/a/deep/\n{root}/a/one.txt\n{root}/b.txt\n{root}/keep.log\n\n"
        )
    );
}

#[test]
fn a_large_directory_view_is_capped_with_a_note() {
    let mut s = Server::with_args(&["--max-output-chars", "0"]);
    for i in 0..1100 {
        s.write(&format!("d/f{i:04}.txt"), "");
    }
    let text = s.view("d");
    let listed = text.lines().filter(|l| l.contains("/f")).count();
    assert_eq!(listed, 1000);
    assert!(
        text.ends_with("<NOTE>Only the first 1000 entries are listed. View a subdirectory to see the rest.</NOTE>\n\n")
    );
    // with the default output limit, the listing is clipped first, like any long output
    let mut s = Server::start();
    for i in 0..1100 {
        s.write(&format!("d/f{i:04}.txt"), "");
    }
    let text = s.view("d");
    assert!(text.contains("<response clipped><NOTE>"), "{text}");
}

#[test]
fn create_str_replace_insert_and_undo_say_what_the_reference_says() {
    let mut s = Server::start();
    let path = s.path("src/new.py");
    let text = s.ok(json!({"command": "create", "path": path, "file_text": "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"}));
    assert_eq!(text, format!("File created successfully at: {path}"));

    let text = s.ok(json!({"command": "str_replace", "path": path, "old_str": "f\n", "new_str": "F\n"}));
    assert_eq!(
        text,
        format!(
            "The file {path} has been edited. Here's the result of running `cat -n` on a snippet of {path}:\n{}\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
            numbered(&["b", "c", "d", "e", "F", "g", "h", "i", "j", "",], 2)
        )
    );

    let text = s.ok(json!({"command": "insert", "path": path, "insert_line": 2, "new_str": "X\nY"}));
    assert_eq!(
        text,
        format!(
            "The file {path} has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n{}\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.",
            numbered(&["a", "b", "X", "Y", "c", "d", "e", "F"], 1)
        )
    );

    let text = s.ok(json!({"command": "undo_edit", "path": path}));
    assert_eq!(
        text,
        format!(
            "Last edit to {path} undone successfully. Here's the result of running `cat -n` on {path}:\n{}\n",
            numbered(&["a", "b", "c", "d", "e", "F", "g", "h", "i", "j", ""], 1)
        )
    );
}

#[test]
fn a_relative_path_resolves_against_the_first_root_and_is_shown_as_given() {
    let mut s = Server::start();
    s.write("dir/f.txt", "x\n");
    let text = s.ok(json!({"command": "view", "path": "dir/f.txt"}));
    assert!(text.starts_with("Here's the result of running `cat -n` on dir/f.txt:\n"), "{text}");
    let text = s.ok(json!({"command": "view", "path": "./dir//f.txt"}));
    assert!(text.starts_with("Here's the result of running `cat -n` on dir/f.txt:\n"), "{text}");
}
