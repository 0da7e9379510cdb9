//! The canonical encoding: a serde serializer that writes any state value as a fixed, documented
//! byte string, fed straight into a hasher. Because it goes through serde, every field of every
//! type that derives `Serialize` is encoded: a field added to the state is hashed without anyone
//! having to remember to (the 0 A.D. rule).
//!
//! Encoding: integers little-endian at their own width; `bool` one byte; `char` as u32;
//! strings and byte strings as a u64 length then the bytes; `None` 0, `Some(v)` 1 then `v`;
//! sequences and maps a u64 length then the items; structs and tuples their fields in order;
//! enum variants a u32 index then the content. Floats are refused: the sim has none.

use serde::ser::{self, Serialize};
use std::fmt;

/// Where canonical bytes go.
pub trait Sink {
    fn put(&mut self, bytes: &[u8]);

    /// An integer of `width` bytes (1, 2, 4 or 8), as its `width` little-endian bytes. Every
    /// integer, `bool`, tag, length and variant index of the encoding comes this way, so a sink
    /// that folds words (the tick digest) need not take bytes apart again.
    #[inline]
    fn word(&mut self, v: u64, width: usize) {
        self.put(&v.to_le_bytes()[..width]);
    }
}

impl Sink for blake3::Hasher {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Why a value could not be encoded (a float, or a sequence of unknown length).
#[derive(Debug)]
pub struct CanonError(String);

impl fmt::Display for CanonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CanonError {}

impl ser::Error for CanonError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        CanonError(msg.to_string())
    }
}

/// Encodes `value` canonically into `sink`.
pub fn encode<T: Serialize + ?Sized, S: Sink>(value: &T, sink: &mut S) -> Result<(), CanonError> {
    value.serialize(&mut Canon { sink })
}

/// The canonical encoder over a sink.
pub struct Canon<'a, S: Sink> {
    sink: &'a mut S,
}

impl<S: Sink> Canon<'_, S> {
    fn len(&mut self, n: usize) {
        self.sink.word(n as u64, 8);
    }
}

type R = Result<(), CanonError>;

impl<'a, 'b, S: Sink> ser::Serializer for &'a mut Canon<'b, S> {
    type Ok = ();
    type Error = CanonError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> R {
        self.sink.word(u64::from(v), 1);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> R {
        self.sink.word(u64::from(v as u8), 1);
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> R {
        self.sink.word(u64::from(v as u16), 2);
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> R {
        self.sink.word(u64::from(v as u32), 4);
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> R {
        self.sink.word(v as u64, 8);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> R {
        self.sink.put(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> R {
        self.sink.word(u64::from(v), 1);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> R {
        self.sink.word(u64::from(v), 2);
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> R {
        self.sink.word(u64::from(v), 4);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> R {
        self.sink.word(v, 8);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> R {
        self.sink.put(&v.to_le_bytes());
        Ok(())
    }
    // serde's trait names the float types; this is where they are refused.
    #[allow(clippy::disallowed_types)]
    fn serialize_f32(self, _: f32) -> R {
        Err(CanonError(
            "a float reached the canonical encoding: the sim has none".into(),
        ))
    }
    #[allow(clippy::disallowed_types)]
    fn serialize_f64(self, _: f64) -> R {
        Err(CanonError(
            "a float reached the canonical encoding: the sim has none".into(),
        ))
    }
    fn serialize_char(self, v: char) -> R {
        self.sink.word(u64::from(u32::from(v)), 4);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> R {
        self.serialize_bytes(v.as_bytes())
    }
    fn serialize_bytes(self, v: &[u8]) -> R {
        self.len(v.len());
        self.sink.put(v);
        Ok(())
    }
    fn serialize_none(self) -> R {
        self.sink.word(0, 1);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R {
        self.sink.word(1, 1);
        v.serialize(self)
    }
    fn serialize_unit(self) -> R {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> R {
        self.serialize_u32(index)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        v: &T,
    ) -> R {
        self.serialize_u32(index)?;
        v.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, CanonError> {
        let n = len.ok_or_else(|| CanonError("a sequence of unknown length".into()))?;
        self.len(n);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, CanonError> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, CanonError> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, CanonError> {
        self.serialize_u32(index)?;
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self, CanonError> {
        let n = len.ok_or_else(|| CanonError("a map of unknown length".into()))?;
        self.len(n);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, CanonError> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, CanonError> {
        self.serialize_u32(index)?;
        Ok(self)
    }
}

macro_rules! compound {
    ($trait:ident, $method:ident) => {
        impl<S: Sink> ser::$trait for &mut Canon<'_, S> {
            type Ok = ();
            type Error = CanonError;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
                v.serialize(&mut **self)
            }
            fn end(self) -> R {
                Ok(())
            }
        }
    };
}

compound!(SerializeSeq, serialize_element);
compound!(SerializeTuple, serialize_element);
compound!(SerializeTupleStruct, serialize_field);
compound!(SerializeTupleVariant, serialize_field);

impl<S: Sink> ser::SerializeMap for &mut Canon<'_, S> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> R {
        k.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        v.serialize(&mut **self)
    }
    fn end(self) -> R {
        Ok(())
    }
}

impl<S: Sink> ser::SerializeStruct for &mut Canon<'_, S> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, v: &T) -> R {
        v.serialize(&mut **self)
    }
    fn end(self) -> R {
        Ok(())
    }
}

impl<S: Sink> ser::SerializeStructVariant for &mut Canon<'_, S> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, v: &T) -> R {
        v.serialize(&mut **self)
    }
    fn end(self) -> R {
        Ok(())
    }
}
