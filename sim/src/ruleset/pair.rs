//! Two numbers written as a TOML array, `[x, y]`: exactly two. A shorter or longer array is
//! refused where it is written (`at = [5, 1, 7]`: typos do not pass silently), which a plain
//! `[T; 2]` does not do (serde reads its two elements and drops the rest).

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

/// Exactly two values, `[x, y]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair<T>(pub [T; 2]);

impl<T> Deref for Pair<T> {
    type Target = [T; 2];

    fn deref(&self) -> &[T; 2] {
        &self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Pair<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pair<T>, D::Error> {
        d.deserialize_seq(PairVisitor(PhantomData))
    }
}

struct PairVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for PairVisitor<T> {
    type Value = Pair<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of exactly 2 elements, [x, y]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pair<T>, A::Error> {
        let x = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let y = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        let mut len = 2;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            len += 1;
        }
        if len > 2 {
            return Err(de::Error::invalid_length(len, &self));
        }
        Ok(Pair([x, y]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Holder {
        at: Pair<i32>,
    }

    #[test]
    fn exactly_two_elements_are_taken() {
        let ok: Holder = toml::from_str("at = [5, 1]").unwrap();
        assert_eq!(*ok.at, [5, 1]);
        for bad in [
            "at = [5, 1, 7]",
            "at = [5]",
            "at = []",
            "at = [5, 1, 7, 8, 9]",
        ] {
            let e = toml::from_str::<Holder>(bad).unwrap_err();
            assert!(
                e.message().contains("exactly 2 elements"),
                "{bad}: {}",
                e.message()
            );
            assert!(e.span().is_some(), "{bad}: the refusal has a place");
        }
    }
}
