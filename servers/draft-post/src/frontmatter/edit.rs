//! The article: the manuscript byte for byte with `source_id` set in its frontmatter, the
//! frontmatter never re-serialised.

use serde_json::Value;

use super::{FrontmatterError, Meta, SOURCE_ID_KEY, parse_meta, split};

/// `id` as a YAML scalar: plain when YAML reads it back as the same string, else quoted.
pub fn yaml_scalar(id: &str) -> String {
    let plain = format!("{SOURCE_ID_KEY}: {id}\n");
    match serde_saphyr::from_str::<Value>(&plain) {
        Ok(Value::Object(map)) if map.get(SOURCE_ID_KEY) == Some(&Value::String(id.to_owned())) => id.to_owned(),
        _ => format!("\"{id}\""),
    }
}

/// Whether a line of YAML is a top-level `source_id` key line.
fn is_source_id_line(line: &str) -> bool {
    let rest = ["source_id", "\"source_id\"", "'source_id'"].iter().find_map(|k| line.strip_prefix(k));
    rest.is_some_and(|r| {
        let r = r.trim_start_matches(' ');
        r.starts_with(':') && r[1..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
    })
}

/// The article for a manuscript: its frontmatter (every key, comment and byte kept) with
/// `source_id: <id>` replacing an existing `source_id` line or appended as the last key, then
/// the body byte for byte. A manuscript without frontmatter gets one holding only
/// `source_id`. The line break style of the manuscript is kept.
///
/// Returns the article and what the manuscript's frontmatter says.
pub fn compose_article(text: &str, id: &str) -> Result<(String, Meta), FrontmatterError> {
    let parts = split(text)?;
    let Some(block) = parts.frontmatter else {
        let nl = if text.find('\n').is_some_and(|i| text[..i].ends_with('\r')) { "\r\n" } else { "\n" };
        let mut out = String::with_capacity(text.len() + 40);
        out.push_str(parts.bom);
        out.push_str("---");
        out.push_str(nl);
        out.push_str(&format!("{SOURCE_ID_KEY}: {}{nl}---{nl}", yaml_scalar(id)));
        out.push_str(parts.body);
        return Ok((out, Meta::default()));
    };
    let before = parse_meta(block.yaml, block.first_line)?;
    let nl = if block.open.ends_with("\r\n") { "\r\n" } else { "\n" };
    let id_line = format!("{SOURCE_ID_KEY}: {}{nl}", yaml_scalar(id));

    let lines: Vec<&str> = block.yaml.split_inclusive('\n').collect();
    let mut yaml = String::with_capacity(block.yaml.len() + id_line.len());
    let mut replaced = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !replaced && is_source_id_line(line) {
            yaml.push_str(&id_line);
            replaced = true;
            i += 1;
            // The old value's continuation lines (a block scalar, a nested value).
            let mut j = i;
            while j < lines.len() {
                let l = lines[j];
                if l.starts_with([' ', '\t']) {
                    j += 1;
                    i = j;
                } else if l.trim().is_empty() {
                    j += 1;
                } else {
                    break;
                }
            }
            continue;
        }
        yaml.push_str(line);
        i += 1;
    }
    if !replaced {
        yaml.push_str(&id_line);
    }

    let after = parse_meta(&yaml, block.first_line).ok();
    let mut expected = before.keys.clone();
    if !expected.iter().any(|k| k == SOURCE_ID_KEY) {
        expected.push(SOURCE_ID_KEY.to_owned());
    }
    let ok = after.as_ref().is_some_and(|a| a.keys == expected && a.source_id.as_deref() == Some(id));
    if !ok {
        return Err(FrontmatterError {
            line: block.first_line,
            column: 1,
            message: "`source_id` cannot be added to this frontmatter without changing its other keys (a flow \
                      mapping, a merge key or an unusual `source_id` entry?); write the frontmatter as plain \
                      `key: value` lines"
                .to_owned(),
        });
    }
    let mut out = String::with_capacity(text.len() + id_line.len());
    out.push_str(parts.bom);
    out.push_str(block.open);
    out.push_str(&yaml);
    out.push_str(block.close);
    out.push_str(parts.body);
    Ok((out, before))
}
