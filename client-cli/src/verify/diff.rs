//! Every field where two states differ, found by walking both as serde trees side by side.
//!
//! A state is serialized into a [`Node`] tree (serde's data model, kept whole: struct and
//! variant names, integers at full width), and the two trees are compared leaf by leaf. Lists
//! of things with an `id` field (players, units, buildings, resources, formations) are matched
//! by id, so one unit more on one side is one difference, not a shifted list; the grid's
//! per-tile lists are shown by tile; fixed-point numbers are shown as decimals.

use cohort_sim::world::State;
use cohort_sim::Fx;
use serde::ser::{self, Serialize};
use std::fmt;

/// One field that differs between two states, with both values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FieldDifference {
    /// Where, as `units[id 5].position.x` or `grid.occupant[tile 12,40]`.
    pub path: String,
    pub server: String,
    pub client: String,
}

/// A value in serde's data model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Int(i128),
    Bool(bool),
    Text(String),
    Unit,
    None,
    Some(Box<Node>),
    Seq(Vec<Node>),
    /// A struct (or a map, named ""), its fields in order.
    Struct(&'static str, Vec<(String, Node)>),
    /// An enum variant and what it holds (`Unit` for none).
    Variant(&'static str, Box<Node>),
}

/// The most characters a value is shown with.
const SHOWN_CHARS: usize = 120;

impl Node {
    /// A fixed-point number: the one struct of the sim with a single `bits` field.
    fn fixed(&self) -> Option<Fx> {
        match self {
            Node::Struct(_, f) if f.len() == 1 && f[0].0 == "bits" => match f[0].1 {
                Node::Int(b) => i64::try_from(b).ok().map(Fx::from_bits),
                _ => None,
            },
            _ => None,
        }
    }

    fn field(&self, name: &str) -> Option<&Node> {
        match self {
            Node::Struct(_, f) => f.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// An item's id, when it is a struct with an integer `id`.
    fn id(&self) -> Option<i128> {
        match self.field("id")? {
            Node::Int(i) => Some(*i),
            _ => None,
        }
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(x) = self.fixed() {
            return write!(f, "{x}");
        }
        match self {
            Node::Int(i) => write!(f, "{i}"),
            Node::Bool(b) => write!(f, "{b}"),
            Node::Text(s) => write!(f, "{s:?}"),
            Node::Unit => write!(f, "()"),
            Node::None => write!(f, "none"),
            Node::Some(v) => write!(f, "{v}"),
            Node::Seq(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    write!(f, "{}{v}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, "]")
            }
            Node::Struct(_, fields) => {
                write!(f, "{{")?;
                for (i, (n, v)) in fields.iter().enumerate() {
                    write!(f, "{}{n}: {v}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, "}}")
            }
            Node::Variant(name, inner) => match **inner {
                Node::Unit => write!(f, "{name}"),
                ref v => write!(f, "{name} {v}"),
            },
        }
    }
}

/// A value shown in at most [`SHOWN_CHARS`] characters.
fn shown(v: &Node) -> String {
    let s = v.to_string();
    match s.char_indices().nth(SHOWN_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// A state as a tree.
pub fn tree(state: &State) -> Node {
    state
        .serialize(Build)
        .expect("the sim's state serializes into the tree")
}

/// Every field where `server` and `client` differ, entities matched by id, in the state's
/// field order.
pub fn differences(server: &State, client: &State) -> Vec<FieldDifference> {
    let mut out = Vec::new();
    let width = usize::try_from(server.grid.width()).unwrap_or(1).max(1);
    compare("", &tree(server), &tree(client), width, &mut out);
    out
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn leaf(path: &str, a: &Node, b: &Node, out: &mut Vec<FieldDifference>) {
    said(path, shown(a), shown(b), out);
}

/// A difference told in words (`present`, `absent`).
fn said(path: &str, server: String, client: String, out: &mut Vec<FieldDifference>) {
    out.push(FieldDifference {
        path: path.to_string(),
        server,
        client,
    });
}

/// The grid's lists with one item per tile, shown by tile.
const PER_TILE: [&str; 3] = ["grid.terrain", "grid.elevation", "grid.occupant"];

fn compare(path: &str, a: &Node, b: &Node, width: usize, out: &mut Vec<FieldDifference>) {
    if a == b {
        return;
    }
    if a.fixed().is_some() || b.fixed().is_some() {
        return leaf(path, a, b, out);
    }
    match (a, b) {
        (Node::Struct(_, x), Node::Struct(_, y)) => {
            for (name, va) in x {
                let p = join(path, name);
                match y.iter().find(|(n, _)| n == name) {
                    Some((_, vb)) => compare(&p, va, vb, width, out),
                    None => leaf(&p, va, &Node::None, out),
                }
            }
            for (name, vb) in y.iter().filter(|(n, _)| !x.iter().any(|(m, _)| m == n)) {
                leaf(&join(path, name), &Node::None, vb, out);
            }
        }
        (Node::Some(x), Node::Some(y)) => compare(path, x, y, width, out),
        (Node::Variant(n, x), Node::Variant(m, y)) if n == m => compare(path, x, y, width, out),
        (Node::Seq(x), Node::Seq(y)) if by_id(x) && by_id(y) && x.len() + y.len() > 0 => {
            for va in x {
                let id = va.id().unwrap_or_default();
                let p = format!("{path}[id {id}]");
                match y.iter().find(|vb| vb.id() == Some(id)) {
                    Some(vb) => compare(&p, va, vb, width, out),
                    None => said(&p, "present".into(), "absent".into(), out),
                }
            }
            for vb in y.iter().filter(|vb| !x.iter().any(|va| va.id() == vb.id())) {
                let p = format!("{path}[id {}]", vb.id().unwrap_or_default());
                said(&p, "absent".into(), "present".into(), out);
            }
        }
        (Node::Seq(x), Node::Seq(y)) => {
            let per_tile = PER_TILE.contains(&path);
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                let p = if per_tile {
                    format!("{path}[tile {},{}]", i % width, i / width)
                } else {
                    format!("{path}[{i}]")
                };
                compare(&p, va, vb, width, out);
            }
            if x.len() != y.len() {
                leaf(
                    &format!("{path}.len"),
                    &Node::Int(x.len() as i128),
                    &Node::Int(y.len() as i128),
                    out,
                );
            }
        }
        _ => leaf(path, a, b, out),
    }
}

/// Whether a list's items are all things with ids (matched by id, not by place); an empty
/// list is matched the way the other side's is.
fn by_id(items: &[Node]) -> bool {
    items.iter().all(|v| v.id().is_some())
}

/// Why a value could not be put in a tree (a float: the sim has none).
#[derive(Debug)]
pub struct TreeError(String);

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TreeError {}

impl ser::Error for TreeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        TreeError(msg.to_string())
    }
}

/// The serializer that builds a [`Node`].
struct Build;

/// A compound value being built.
struct Parts {
    name: &'static str,
    variant: Option<&'static str>,
    seq: bool,
    items: Vec<(String, Node)>,
    key: Option<String>,
}

impl Parts {
    fn new(name: &'static str, variant: Option<&'static str>, seq: bool) -> Parts {
        Parts {
            name,
            variant,
            seq,
            items: Vec::new(),
            key: None,
        }
    }

    fn push<T: Serialize + ?Sized>(&mut self, name: String, v: &T) -> Result<(), TreeError> {
        let node = v.serialize(Build)?;
        self.items.push((name, node));
        Ok(())
    }

    fn done(self) -> Node {
        let inner = if self.seq {
            Node::Seq(self.items.into_iter().map(|(_, v)| v).collect())
        } else {
            Node::Struct(self.name, self.items)
        };
        match self.variant {
            Some(v) => Node::Variant(v, Box::new(inner)),
            None => inner,
        }
    }
}

type Built = Result<Node, TreeError>;

macro_rules! int {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Built {
            Ok(Node::Int(i128::from(v)))
        }
    )*};
}

impl ser::Serializer for Build {
    type Ok = Node;
    type Error = TreeError;
    type SerializeSeq = Parts;
    type SerializeTuple = Parts;
    type SerializeTupleStruct = Parts;
    type SerializeTupleVariant = Parts;
    type SerializeMap = Parts;
    type SerializeStruct = Parts;
    type SerializeStructVariant = Parts;

    int!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_bool(self, v: bool) -> Built {
        Ok(Node::Bool(v))
    }
    fn serialize_i128(self, v: i128) -> Built {
        Ok(Node::Int(v))
    }
    fn serialize_u128(self, v: u128) -> Built {
        i128::try_from(v)
            .map(Node::Int)
            .map_err(|_| TreeError("a u128 beyond i128".into()))
    }
    // serde's trait names the float types; the sim has none.
    #[allow(clippy::disallowed_types)]
    fn serialize_f32(self, _: f32) -> Built {
        Err(TreeError("a float in the state".into()))
    }
    #[allow(clippy::disallowed_types)]
    fn serialize_f64(self, _: f64) -> Built {
        Err(TreeError("a float in the state".into()))
    }
    fn serialize_char(self, v: char) -> Built {
        Ok(Node::Text(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Built {
        Ok(Node::Text(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Built {
        Ok(Node::Seq(
            v.iter().map(|b| Node::Int(i128::from(*b))).collect(),
        ))
    }
    fn serialize_none(self) -> Built {
        Ok(Node::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Built {
        Ok(Node::Some(Box::new(v.serialize(Build)?)))
    }
    fn serialize_unit(self) -> Built {
        Ok(Node::Unit)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Built {
        Ok(Node::Unit)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Built {
        Ok(Node::Variant(variant, Box::new(Node::Unit)))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Built {
        v.serialize(Build)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Built {
        Ok(Node::Variant(variant, Box::new(v.serialize(Build)?)))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Parts, TreeError> {
        Ok(Parts::new("", None, true))
    }
    fn serialize_tuple(self, _: usize) -> Result<Parts, TreeError> {
        Ok(Parts::new("", None, true))
    }
    fn serialize_tuple_struct(self, name: &'static str, _: usize) -> Result<Parts, TreeError> {
        Ok(Parts::new(name, None, true))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Parts, TreeError> {
        Ok(Parts::new("", Some(variant), true))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Parts, TreeError> {
        Ok(Parts::new("", None, false))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Parts, TreeError> {
        Ok(Parts::new(name, None, false))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Parts, TreeError> {
        Ok(Parts::new(name, Some(variant), false))
    }
}

macro_rules! elements {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Parts {
            type Ok = Node;
            type Error = TreeError;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), TreeError> {
                let i = self.items.len().to_string();
                self.push(i, v)
            }
            fn end(self) -> Built {
                Ok(self.done())
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Parts {
            type Ok = Node;
            type Error = TreeError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                name: &'static str,
                v: &T,
            ) -> Result<(), TreeError> {
                self.push(name.to_string(), v)
            }
            fn end(self) -> Built {
                Ok(self.done())
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Parts {
    type Ok = Node;
    type Error = TreeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), TreeError> {
        self.key = Some(k.serialize(Build)?.to_string());
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), TreeError> {
        let k = self.key.take().unwrap_or_default();
        self.push(k, v)
    }
    fn end(self) -> Built {
        Ok(self.done())
    }
}
