//! Maps: the embedded default map's generator, the ASCII map format and Moving AI `.map` files.

mod generate;
pub mod movingai;

pub use generate::{generate, MapOptions, DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE};
pub use movingai::{parse_scenarios, Cell, MovingAiError, MovingAiMap, Scenario};
