//! Maps: the embedded default map's generator, the ASCII map format and Moving AI `.map` files.

mod generate;

pub use generate::{generate, MapOptions, DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE};
