//! A policy's `input`, rendered straight from the payload document:
//! [`Input`] serializes the document into a `regorus` value (the value
//! `regorus` would parse from the document's JSON text), without JSON text
//! or a `serde_json` value in between. Object keys and enum names the
//! payload always uses come from a table built once, so an input allocates
//! only its per-event strings and containers.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::LazyLock;

use regorus::Value;
use serde::ser::{self, Serialize};

use crate::shell::payload::Render;

/// Renders a payload document as a policy's `input` value
/// ([`Value::Undefined`] for a document with no JSON form, such as a
/// non-string map key; the payload never has one).
pub(crate) struct Input;

impl Render for Input {
    type Output = Value;
    fn render<S: Serialize + ?Sized>(&self, doc: &S, _len: usize) -> Value {
        doc.serialize(ToValue).unwrap_or(Value::Undefined)
    }
}

/// Strings every payload repeats (its keys, its enum values), as values
/// built once and shared.
static COMMON: LazyLock<HashMap<&'static str, Value>> = LazyLock::new(|| {
    const NAMES: &[&str] = &[
        // The envelope's fields.
        "schema",
        "version",
        "phase",
        "hook_id",
        "run_id",
        "turn",
        "cwd",
        "target_ran",
        "mode",
        "tool_name",
        "call_id",
        "args",
        "result",
        "outcome",
        "prompt",
        "data",
        "affected_paths",
        "path_diagnostics",
        "binary",
        "loop_count",
        "payload_ref",
        "elided",
        // Path diagnostics and binary metadata.
        "kind",
        "pointer",
        "path",
        "len_bytes",
        "sha256",
        "$binary",
        // Values.
        hooks_plan::PAYLOAD_SCHEMA_NAME,
        "full",
        "redacted",
        "outside_root",
        "too_long",
        "too_many",
        "nul_byte",
        "not_a_path",
        "success",
        "timeout",
        "not_found",
        "denied",
        "error",
    ];
    NAMES
        .iter()
        .copied()
        .chain(hooks_plan::Phase::ALL.iter().map(|p| p.as_str()))
        .map(|name| (name, Value::String(name.into())))
        .collect()
});

/// `s` as a string value: shared when it is a common one.
fn string(s: &str) -> Value {
    match COMMON.get(s) {
        Some(value) => value.clone(),
        None => Value::String(s.into()),
    }
}

/// Why a document has no `regorus` value.
#[derive(Debug)]
pub(crate) struct NoValue(String);

impl fmt::Display for NoValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoValue {}

impl ser::Error for NoValue {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NoValue(msg.to_string())
    }
}

/// The name `serde_json` gives a number it keeps as text
/// (`arbitrary_precision`).
const JSON_NUMBER: &str = "$serde_json::private::Number";

/// The serializer into a `regorus` value. Follows `serde_json::to_value`
/// (a non-finite float is `null`, a unit or `None` is `null`, an enum's
/// unit variant its name, other variants `{variant: value}`), and
/// `regorus`'s reading of JSON numbers (a non-negative integer is
/// unsigned).
struct ToValue;

impl ser::Serializer for ToValue {
    type Ok = Value;
    type Error = NoValue;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Variant<Seq>;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Variant<Map>;

    fn serialize_bool(self, v: bool) -> Result<Value, NoValue> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, NoValue> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, NoValue> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, NoValue> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, NoValue> {
        Ok(match u64::try_from(v) {
            Ok(u) => Value::from(u),
            Err(_) => Value::from(v),
        })
    }
    fn serialize_i128(self, v: i128) -> Result<Value, NoValue> {
        match i64::try_from(v) {
            Ok(i) => self.serialize_i64(i),
            Err(_) => self.serialize_u128(u128::try_from(v).map_err(ser::Error::custom)?),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<Value, NoValue> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, NoValue> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, NoValue> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, NoValue> {
        Ok(Value::from(v))
    }
    fn serialize_u128(self, v: u128) -> Result<Value, NoValue> {
        u64::try_from(v)
            .map(Value::from)
            .map_err(|_| NoValue("number out of range".to_owned()))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, NoValue> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, NoValue> {
        Ok(if v.is_finite() {
            Value::from(v)
        } else {
            Value::Null
        })
    }
    fn serialize_char(self, v: char) -> Result<Value, NoValue> {
        Ok(Value::String(v.encode_utf8(&mut [0; 4]).into()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, NoValue> {
        Ok(string(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, NoValue> {
        Ok(Value::from(
            v.iter()
                .map(|b| Value::from(u64::from(*b)))
                .collect::<Vec<_>>(),
        ))
    }
    fn serialize_none(self) -> Result<Value, NoValue> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, NoValue> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, NoValue> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, NoValue> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, NoValue> {
        Ok(string(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Value, NoValue> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, NoValue> {
        let mut map = BTreeMap::new();
        map.insert(string(variant), value.serialize(ToValue)?);
        Ok(Value::from(map))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, NoValue> {
        Ok(Seq(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, NoValue> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq, NoValue> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Seq>, NoValue> {
        Ok(Variant(variant, self.serialize_seq(Some(len))?))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map, NoValue> {
        Ok(Map::default())
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Map, NoValue> {
        Ok(Map {
            number: name == JSON_NUMBER,
            ..Map::default()
        })
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Variant<Map>, NoValue> {
        Ok(Variant(variant, Map::default()))
    }
}

/// An array being serialized.
struct Seq(Vec<Value>);

impl ser::SerializeSeq for Seq {
    type Ok = Value;
    type Error = NoValue;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NoValue> {
        self.0.push(value.serialize(ToValue)?);
        Ok(())
    }
    fn end(self) -> Result<Value, NoValue> {
        Ok(Value::from(self.0))
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Value;
    type Error = NoValue;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NoValue> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, NoValue> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Value;
    type Error = NoValue;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NoValue> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Value, NoValue> {
        ser::SerializeSeq::end(self)
    }
}

/// An object being serialized (`number`: `serde_json`'s number kept as
/// text, whose one field is the number).
#[derive(Default)]
struct Map {
    entries: BTreeMap<Value, Value>,
    key: Option<Value>,
    number: bool,
}

impl ser::SerializeMap for Map {
    type Ok = Value;
    type Error = NoValue;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), NoValue> {
        match key.serialize(ToValue)? {
            key @ Value::String(_) => {
                self.key = Some(key);
                Ok(())
            }
            _ => Err(NoValue("an object key is not a string".to_owned())),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NoValue> {
        let key = self
            .key
            .take()
            .ok_or_else(|| NoValue("a value without a key".to_owned()))?;
        self.entries.insert(key, value.serialize(ToValue)?);
        Ok(())
    }
    fn end(self) -> Result<Value, NoValue> {
        Ok(Value::from(self.entries))
    }
}

impl ser::SerializeStruct for Map {
    type Ok = Value;
    type Error = NoValue;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), NoValue> {
        let value = value.serialize(ToValue)?;
        if self.number {
            let Value::String(text) = &value else {
                return Err(NoValue("a number that is not text".to_owned()));
            };
            let number = Value::from_numeric_string(text).map_err(ser::Error::custom)?;
            self.entries.insert(Value::Null, number);
            return Ok(());
        }
        self.entries.insert(string(key), value);
        Ok(())
    }
    fn end(mut self) -> Result<Value, NoValue> {
        if self.number {
            return self
                .entries
                .remove(&Value::Null)
                .ok_or_else(|| NoValue("a number without its text".to_owned()));
        }
        Ok(Value::from(self.entries))
    }
}

/// An enum variant with data: `{variant: data}`.
struct Variant<T>(&'static str, T);

impl<T> Variant<T> {
    fn wrap(variant: &'static str, value: Value) -> Value {
        let mut map = BTreeMap::new();
        map.insert(string(variant), value);
        Value::from(map)
    }
}

impl ser::SerializeTupleVariant for Variant<Seq> {
    type Ok = Value;
    type Error = NoValue;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NoValue> {
        ser::SerializeSeq::serialize_element(&mut self.1, value)
    }
    fn end(self) -> Result<Value, NoValue> {
        Ok(Self::wrap(self.0, ser::SerializeSeq::end(self.1)?))
    }
}

impl ser::SerializeStructVariant for Variant<Map> {
    type Ok = Value;
    type Error = NoValue;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), NoValue> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, value)
    }
    fn end(self) -> Result<Value, NoValue> {
        Ok(Self::wrap(self.0, ser::SerializeStruct::end(self.1)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rendered input is the value `regorus` makes of the document.
    #[test]
    fn renders_what_regorus_reads_from_the_json() {
        let doc = json!({
            "schema": "agent-hooks/payload",
            "phase": "before_tool",
            "n": [0, 1, -2, 2.5, 1e300, u64::MAX, i64::MIN],
            "nested": {"a": {"b": [true, false, null, "x"]}, "": {}},
            "empty": [],
            "emoji": "é✓",
        });
        let expected = Value::from(doc.clone());
        assert_eq!(Input.render(&doc, 0), expected);
    }

    /// Structs, options, enums and tuples render as `serde_json` would
    /// write them.
    #[test]
    fn structs_and_enums_render_as_their_json() {
        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(u8, char),
            Struct { a: i32 },
        }
        #[derive(serde::Serialize)]
        struct S {
            some: Option<u32>,
            none: Option<u32>,
            unit: (),
            e: Vec<E>,
            f: f64,
        }
        let s = S {
            some: Some(3),
            none: None,
            unit: (),
            e: vec![E::Unit, E::New(1), E::Tuple(2, 'c'), E::Struct { a: -4 }],
            f: f64::NAN,
        };
        let expected = Value::from(serde_json::to_value(&s).unwrap());
        assert_eq!(Input.render(&s, 0), expected);
    }
}
