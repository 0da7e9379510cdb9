//! Scenario errors: the file, the line and the field, and what is wrong.

use std::fmt;

/// What is wrong with a scenario (or a map or ruleset file it names), and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file the fault is in.
    pub file: String,
    /// 1-based; 0 when the fault has no line (a file that could not be read).
    pub line: usize,
    /// The field, as a path (`units[2].kind`); empty when none applies.
    pub field: String,
    pub message: String,
}

impl std::error::Error for ScenarioError {}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl ScenarioError {
    pub fn new(
        file: &str,
        line: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError {
            file: file.to_string(),
            line,
            field: field.into(),
            message: message.into(),
        }
    }

    /// A TOML error in `text` (from `file`), located at its span: the line, and the field named
    /// by the key on that line under the nearest table header (`units[1].count`).
    pub fn from_toml(file: &str, text: &str, e: &toml::de::Error) -> ScenarioError {
        let at = e.span().map(|s| s.start).unwrap_or(0);
        let line = line_of(text, at);
        ScenarioError::new(file, line, field_at(text, at), e.message().trim())
    }
}

/// The text of `file`'s `bytes`, refused where it goes wrong: past `limit` bytes (the line the
/// limit falls on; `limit_name` names the limit) or at the first byte that is not UTF-8 (its
/// line, column and field).
pub fn text_of<'a>(
    file: &str,
    bytes: &'a [u8],
    limit: usize,
    limit_name: &str,
) -> Result<&'a str, ScenarioError> {
    if bytes.len() > limit {
        let line = bytes[..limit].iter().filter(|&&b| b == b'\n').count() + 1;
        return Err(ScenarioError::new(
            file,
            line,
            "",
            format!("the file goes on past {limit} bytes, its limit ({limit_name})"),
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let text = String::from_utf8_lossy(good);
        let column = text.len() - text.rfind('\n').map_or(0, |i| i + 1) + 1;
        ScenarioError::new(
            file,
            line_of(&text, text.len()),
            field_at(&text, text.len()),
            format!(
                "column {column}: byte 0x{:02x} is not UTF-8 (files are UTF-8 text)",
                bytes[e.valid_up_to()]
            ),
        )
    })
}

/// The 1-based line of byte offset `at` in `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The field at byte offset `at`: the nearest table header above it (with its index when it is
/// an array of tables) and the key on its line, if any.
fn field_at(text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = text[at..].find('\n').map(|i| at + i).unwrap_or(text.len());
    let line = &text[line_start..line_end];
    let key = if line.trim_start().starts_with('[') {
        None
    } else {
        line.split_once('=')
            .map(|(k, _)| k.trim().trim_matches('"').to_string())
            .filter(|k| !k.is_empty() && !k.contains(' '))
    };
    let mut table = String::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for l in text[..line_end].lines() {
        let l = l.trim();
        if let Some(name) = l.strip_prefix("[[").and_then(|r| r.split_once("]]")) {
            let name = name.0.trim().to_string();
            let n = match counts.iter_mut().find(|(k, _)| *k == name) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    counts.push((name.clone(), 0));
                    0
                }
            };
            table = format!("{name}[{n}]");
        } else if let Some(name) = l.strip_prefix('[').and_then(|r| r.split_once(']')) {
            table = name.0.trim().to_string();
        }
    }
    match (table.is_empty(), key) {
        (_, None) => table,
        (true, Some(k)) => k,
        (false, Some(k)) => format!("{table}.{k}"),
    }
}

/// The line where a dotted field (`units.archer.speed`) is written in a TOML text: the key under
/// its table's header, or the header itself, or 0 when it cannot be found.
pub fn locate_field(text: &str, field: &str) -> usize {
    let parts: Vec<&str> = field.split('.').collect();
    // Try the longest table prefix whose header appears, then the key after it.
    for split in (0..=parts.len()).rev() {
        let (table, rest) = parts.split_at(split);
        let header = format!("[{}]", table.join("."));
        let start = if table.is_empty() {
            Some(0)
        } else {
            text.lines().position(|l| l.trim() == header)
        };
        let Some(start) = start else { continue };
        let Some(key) = rest.first() else {
            return start + 1;
        };
        for (i, l) in text.lines().enumerate().skip(start) {
            let l = l.trim();
            if i > start && l.starts_with('[') {
                break;
            }
            if l.split_once('=')
                .is_some_and(|(k, _)| k.trim().trim_matches('"') == *key)
            {
                return i + 1;
            }
        }
        return if table.is_empty() { 0 } else { start + 1 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_named_by_table_index_and_key() {
        let text =
            "name = \"x\"\n[[units]]\nkind = 1\n[[units]]\ncount = \"x\"\n[map]\nascii = 3\n";
        assert_eq!(
            field_at(text, text.find("\"x\"\n[map").unwrap()),
            "units[1].count"
        );
        assert_eq!(field_at(text, text.find("ascii").unwrap() + 8), "map.ascii");
        assert_eq!(field_at(text, 7), "name");
        assert_eq!(line_of(text, text.find("count").unwrap()), 5);
    }
}
