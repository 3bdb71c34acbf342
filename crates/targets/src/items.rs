//! The items of a list answer, one at a time: a server's answer is walked to the array at a JSON
//! pointer and each element is handed over alone, so that memory stays bounded whatever the
//! list holds (fifteen million zeros cost nothing but the body).

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;

/// An element larger than this is handed over as `Value::Null` (it cannot be a post's item).
const MAX_ITEM: usize = 256 * 1024;

/// What walking the answer found at the pointer.
#[derive(Debug, PartialEq, Eq)]
pub enum Walk {
    /// An array: every element was handed over.
    Array,
    /// Something else, or nothing.
    NotArray,
}

/// Hand each element of the array at `pointer` (RFC 6901; `""` is the whole answer) to `each`.
pub fn each(body: &str, pointer: &str, each: &mut dyn FnMut(Value)) -> Result<Walk, String> {
    let segments: Vec<String> = match pointer {
        "" => Vec::new(),
        p if p.starts_with('/') => p[1..]
            .split('/')
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect(),
        p => return Err(format!("`{p}` is not a JSON pointer (it starts with `/`)")),
    };
    let mut found = Walk::NotArray;
    let mut de = serde_json::Deserializer::from_str(body);
    At {
        segments: &segments,
        each,
        found: &mut found,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end())
    .map_err(|e| format!("not JSON: {e}"))?;
    Ok(found)
}

struct At<'a, 'f> {
    segments: &'a [String],
    each: &'f mut dyn FnMut(Value),
    found: &'f mut Walk,
}

impl<'de> DeserializeSeed<'de> for At<'_, '_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for At<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (first, rest) = match self.segments.split_first() {
            Some(split) => split,
            None => (&String::new(), self.segments),
        };
        let mut seed = (!self.segments.is_empty()).then_some(At {
            segments: rest,
            each: self.each,
            found: self.found,
        });
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match seed.take_if(|_| key == first.as_str()) {
                Some(at) => map.next_value_seed(at)?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if let Some((first, rest)) = self.segments.split_first() {
            // A pointer through an array names an index.
            let index = first.parse::<usize>().ok();
            let mut seed = Some(At {
                segments: rest,
                each: self.each,
                found: self.found,
            });
            let mut i = 0;
            loop {
                let more = match seed.take_if(|_| Some(i) == index) {
                    Some(at) => seq.next_element_seed(at)?.is_some(),
                    None => seq.next_element::<IgnoredAny>()?.is_some(),
                };
                if !more {
                    return Ok(());
                }
                i += 1;
            }
        }
        *self.found = Walk::Array;
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            let text = raw.get();
            let value = match text.len() <= MAX_ITEM {
                true => serde_json::from_str(text).unwrap_or(Value::Null),
                false => Value::Null,
            };
            (self.each)(value);
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(body: &str, pointer: &str) -> (Result<Walk, String>, Vec<Value>) {
        let mut seen = Vec::new();
        let walk = each(body, pointer, &mut |v| seen.push(v));
        (walk, seen)
    }

    #[test]
    fn walks_to_the_array_at_the_pointer() {
        let body = r#"{"meta":{"n":2,"items":[9]},"data":{"items":[{"id":1},{"id":"b"}]}}"#;
        let (walk, seen) = ids(body, "/data/items");
        assert_eq!(walk, Ok(Walk::Array));
        assert_eq!(
            seen,
            [serde_json::json!({"id":1}), serde_json::json!({"id":"b"})]
        );
        assert_eq!(ids("[1,2]", "").1.len(), 2);
        assert_eq!(ids(r#"[{"a":[7,8]}]"#, "/0/a").1, [7, 8]);
        assert_eq!(ids(r#"{"x":1}"#, "/items").0, Ok(Walk::NotArray));
        assert_eq!(ids(r#"{"items":{}}"#, "/items").0, Ok(Walk::NotArray));
        assert!(ids("[1,", "").0.is_err());
        assert!(ids("[1] trailing", "").0.is_err());
    }

    #[test]
    fn a_huge_list_of_tiny_items_is_walked_not_held() {
        let body = format!("[{}0]", "0,".repeat(1_000_000));
        let mut count = 0;
        assert_eq!(each(&body, "", &mut |_| count += 1), Ok(Walk::Array));
        assert_eq!(count, 1_000_001);
    }
}
