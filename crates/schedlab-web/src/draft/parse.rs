//! Reading typed text into values, and the messages that go beside fields.

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Messages keyed by the id of the field they belong to (the DOM id of its input), in the order
/// they were found. A view shows each beside its field; the first one also explains a disabled Run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Problems(Vec<(String, String)>);

impl Problems {
    /// Records a message; a field keeps its first message only (the one to fix first).
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        if self.get(&field).is_none() {
            self.0.push((field, message.into()));
        }
    }

    pub fn get(&self, field: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, m)| m.as_str())
    }

    pub fn first(&self) -> Option<(&str, &str)> {
        self.0.first().map(|(f, m)| (f.as_str(), m.as_str()))
    }

    /// Whether any message belongs to a field whose id starts with `prefix`.
    pub fn any_under(&self, prefix: &str) -> bool {
        self.0.iter().any(|(f, _)| f.starts_with(prefix))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A whole number (or whatever `T` parses), or a message at `id`.
pub fn number<T: FromStr>(text: &str, id: &str, problems: &mut Problems) -> Option<T> {
    let t = text.trim();
    match t.parse() {
        Ok(v) => Some(v),
        Err(_) if t.is_empty() => {
            problems.add(id, "required: type a number");
            None
        }
        Err(_) => {
            problems.add(id, format!("'{t}' is not a whole number in range"));
            None
        }
    }
}

/// Numbers separated by commas, spaces or semicolons (an empty text is an empty list), or a
/// message at `id` naming the first item that is not one.
pub fn list<T: FromStr>(text: &str, id: &str, problems: &mut Problems) -> Option<Vec<T>> {
    let mut out = Vec::new();
    for item in text
        .split([',', ';', ' ', '\t', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match item.parse() {
            Ok(v) => out.push(v),
            Err(_) => {
                problems.add(
                    id,
                    format!("'{item}' is not a whole number (write numbers separated by commas)"),
                );
                return None;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_lists() {
        let mut p = Problems::default();
        assert_eq!(number::<u32>(" 42 ", "a", &mut p), Some(42));
        assert_eq!(number::<u32>("-1", "b", &mut p), None);
        assert_eq!(number::<u32>("", "c", &mut p), None);
        assert_eq!(list::<u32>("1, 2;3 4", "d", &mut p), Some(vec![1, 2, 3, 4]));
        assert_eq!(list::<u32>("", "e", &mut p), Some(vec![]));
        assert_eq!(list::<u32>("1, x", "f", &mut p), None);
        assert!(p.get("b").unwrap().contains("-1"));
        assert!(p.get("c").unwrap().contains("required"));
        assert!(p.get("f").unwrap().contains("'x'"));
        assert_eq!(p.first().unwrap().0, "b");
        assert!(p.any_under("f") && !p.any_under("z"));
        // A field keeps its first message.
        p.add("b", "second");
        assert!(p.get("b").unwrap().contains("-1"));
    }
}
