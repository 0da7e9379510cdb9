//! The text syntax of what a player types on stdin (`cohort play`) or writes in a bot script.
//!
//! One line is one order. Words are separated by spaces; unit and target ids are the entity
//! numbers the game shows; coordinates are world units (tiles are one unit across, centred on
//! whole numbers), written as decimals (`10`, `10.5`, `-3.25`), read exactly into fixed point.
//!
//! ```text
//! move 3 4 to 10.5 20            units 3 and 4 go together to (10.5, 20)
//! formation-move 3 4 to 10 20    each to its place in the group's formation (also `fmove`)
//! attack-move 3 4 to 40 40       walk there, fighting what they meet (also `amove`)
//! attack 5 on 9                  unit 5 attacks entity 9
//! follow 5 on 9                  unit 5 keeps near unit 9
//! gather 5 on 12                 villager 5 gathers from resource 12
//! build 5 on 40                  villager 5 builds or repairs building 40
//! place house at 30 31 by 5 6    lay a house foundation at tile (30, 31); 5 and 6 build it
//! place house at 30 31 turned by 5
//! stop 3 4 | hold 3 4 | delete 3 4
//! formation line 3 4 5           set the group's formation: line, staggered, box, flank, shape
//! disband 3 4 5                  take the units out of their formation
//! chat TEXT…                     a chat line to everyone in the match
//! pause | resume | leave | help
//! ```
//!
//! A line starting with `#` and a blank line are nothing. A bad line is refused with a
//! [`TextError`] saying what was expected; nothing is sent for it.

use cohort_sim::command::MAX_UNITS_PER_COMMAND;
use cohort_sim::ruleset::parse_decimal;
use cohort_sim::{Command, EntityId, FormationKind, Fx, Tile, Vec2};
use std::fmt;

/// The longest line read, in bytes; a longer one is refused whole.
pub const MAX_LINE_BYTES: usize = 4096;

/// The help text `help` prints: every form of line.
pub const HELP: &str = "\
move U… to X Y            units go together to (X, Y)
formation-move U… to X Y  each unit to its place in the formation (also: fmove)
attack-move U… to X Y     walk there, fighting on the way (also: amove)
attack U… on T            attack entity T
follow U… on T            keep near unit T
gather U… on T            gather from resource T
build U… on T             build or repair building T
place KIND at X Y [turned] by U…   lay a foundation at tile (X, Y); U… build it
stop U… | hold U… | delete U…
formation line|staggered|box|flank|shape U…
disband U…                take units out of their formation
chat TEXT…                say something to the match
pause | resume | leave | help";

/// One line read from a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A blank line or a comment.
    Nothing,
    /// An order for the sim (the core fills in the issuing player).
    Command(Command),
    Chat(String),
    Pause,
    Resume,
    Leave,
    Help,
}

/// Why a line was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("unknown word `{0}`; type `help` for the list of orders")]
    UnknownVerb(String),
    #[error("`{verb}` expects: {usage}")]
    Usage { verb: String, usage: &'static str },
    #[error("`{0}` is not a unit id (a whole number such as 3)")]
    BadId(String),
    #[error("`{0}` is not a coordinate (a decimal such as 10.5)")]
    BadNumber(String),
    #[error("`{0}` is not a tile coordinate (a whole number)")]
    BadTile(String),
    #[error("unknown formation `{0}`; expected line, staggered, box, flank or shape")]
    BadFormation(String),
    #[error("at most {MAX_UNITS_PER_COMMAND} units in one order, {0} given")]
    TooManyUnits(usize),
    #[error("the line is longer than {MAX_LINE_BYTES} bytes")]
    TooLong,
}

/// Reads one line. Same line, same result; nothing here panics on any input.
pub fn parse_line(line: &str) -> Result<Line, TextError> {
    if line.len() > MAX_LINE_BYTES {
        return Err(TextError::TooLong);
    }
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(Line::Nothing);
    }
    let mut words = line.split_whitespace();
    let verb = words.next().unwrap_or_default().to_ascii_lowercase();
    let rest: Vec<&str> = words.collect();
    let bare = |l: Line, usage: &'static str| {
        if rest.is_empty() {
            Ok(l)
        } else {
            Err(usage_error(&verb, usage))
        }
    };
    match verb.as_str() {
        "chat" | "say" => {
            let text = line[line.find(char::is_whitespace).unwrap_or(line.len())..].trim();
            if text.is_empty() {
                return Err(usage_error(&verb, "chat TEXT…"));
            }
            Ok(Line::Chat(text.to_string()))
        }
        "pause" => bare(Line::Pause, "pause"),
        "resume" => bare(Line::Resume, "resume"),
        "leave" | "quit" => bare(Line::Leave, "leave"),
        "help" | "?" => Ok(Line::Help),
        _ => parse_command(&verb, &rest).map(Line::Command),
    }
}

fn usage_error(verb: &str, usage: &'static str) -> TextError {
    TextError::Usage {
        verb: verb.to_string(),
        usage,
    }
}

fn parse_command(verb: &str, rest: &[&str]) -> Result<Command, TextError> {
    const TO: &str = "U… to X Y (unit ids, then `to` and a point)";
    const ON: &str = "U… on T (unit ids, then `on` and a target id)";
    const UNITS: &str = "U… (one or more unit ids)";
    Ok(match verb {
        "move" | "formation-move" | "fmove" | "attack-move" | "amove" => {
            let (units, to) = units_to_point(verb, rest, TO)?;
            match verb {
                "move" => Command::Move { units, to },
                "attack-move" | "amove" => Command::AttackMove { units, to },
                _ => Command::FormationMove { units, to },
            }
        }
        "attack" | "follow" | "gather" | "build" => {
            let (units, target) = units_on_target(verb, rest, ON)?;
            match verb {
                "attack" => Command::Attack { units, target },
                "follow" => Command::Follow { units, target },
                "gather" => Command::Gather { units, target },
                _ => Command::Build { units, target },
            }
        }
        "stop" | "hold" | "delete" | "disband" => {
            let units = unit_list(verb, rest, UNITS)?;
            match verb {
                "stop" => Command::Stop { units },
                "hold" => Command::Hold { units },
                "disband" => Command::Disband { units },
                _ => Command::Delete { units },
            }
        }
        "formation" => {
            const USAGE: &str = "line|staggered|box|flank|shape U…";
            let (kind, units) = rest.split_first().ok_or(usage_error(verb, USAGE))?;
            Command::SetFormation {
                formation: formation_kind(kind)?,
                units: unit_list(verb, units, USAGE)?,
            }
        }
        "place" => parse_place(rest)?,
        other => return Err(TextError::UnknownVerb(other.to_string())),
    })
}

fn parse_place(rest: &[&str]) -> Result<Command, TextError> {
    const USAGE: &str = "KIND at X Y [turned] by U…";
    let bad = || usage_error("place", USAGE);
    let [kind, at, x, y, tail @ ..] = rest else {
        return Err(bad());
    };
    if *at != "at" {
        return Err(bad());
    }
    let (turned, tail) = match tail.split_first() {
        Some((&"turned", t)) => (true, t),
        _ => (false, tail),
    };
    let Some((&"by", builders)) = tail.split_first() else {
        return Err(bad());
    };
    Ok(Command::PlaceBuilding {
        kind: kind.to_string(),
        at: Tile::new(tile_coordinate(x)?, tile_coordinate(y)?),
        turned,
        builders: unit_list("place", builders, USAGE)?,
    })
}

fn units_to_point(
    verb: &str,
    rest: &[&str],
    usage: &'static str,
) -> Result<(Vec<EntityId>, Vec2), TextError> {
    let split = rest
        .iter()
        .position(|w| *w == "to")
        .ok_or(usage_error(verb, usage))?;
    let [x, y] = &rest[split + 1..] else {
        return Err(usage_error(verb, usage));
    };
    let units = unit_list(verb, &rest[..split], usage)?;
    Ok((units, Vec2::new(coordinate(x)?, coordinate(y)?)))
}

fn units_on_target(
    verb: &str,
    rest: &[&str],
    usage: &'static str,
) -> Result<(Vec<EntityId>, EntityId), TextError> {
    let split = rest
        .iter()
        .position(|w| *w == "on")
        .ok_or(usage_error(verb, usage))?;
    let [target] = &rest[split + 1..] else {
        return Err(usage_error(verb, usage));
    };
    Ok((unit_list(verb, &rest[..split], usage)?, entity_id(target)?))
}

fn unit_list(verb: &str, words: &[&str], usage: &'static str) -> Result<Vec<EntityId>, TextError> {
    if words.is_empty() {
        return Err(usage_error(verb, usage));
    }
    if words.len() > MAX_UNITS_PER_COMMAND {
        return Err(TextError::TooManyUnits(words.len()));
    }
    words.iter().map(|w| entity_id(w)).collect()
}

fn entity_id(word: &str) -> Result<EntityId, TextError> {
    word.parse::<u64>()
        .map(EntityId)
        .map_err(|_| TextError::BadId(word.to_string()))
}

fn coordinate(word: &str) -> Result<Fx, TextError> {
    parse_decimal(word).map_err(|_| TextError::BadNumber(word.to_string()))
}

fn tile_coordinate(word: &str) -> Result<i32, TextError> {
    word.parse::<i32>()
        .map_err(|_| TextError::BadTile(word.to_string()))
}

fn formation_kind(word: &str) -> Result<FormationKind, TextError> {
    Ok(match word.to_ascii_lowercase().as_str() {
        "line" => FormationKind::Line,
        "staggered" => FormationKind::Staggered,
        "box" => FormationKind::Box,
        "flank" => FormationKind::Flank,
        "shape" => FormationKind::Shape,
        _ => return Err(TextError::BadFormation(word.to_string())),
    })
}

/// A command written in the text syntax: `parse_line(&command_text(c))` gives `c` back.
pub fn command_text(command: &Command) -> String {
    CommandText(command).to_string()
}

struct CommandText<'a>(&'a Command);

impl fmt::Display for CommandText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let write_units = |f: &mut fmt::Formatter<'_>, units: &[EntityId]| -> fmt::Result {
            for (i, u) in units.iter().enumerate() {
                write!(f, "{}{}", if i == 0 { "" } else { " " }, u.0)?;
            }
            Ok(())
        };
        let (verb, list) = match self.0 {
            Command::Move { units, .. } => ("move", units),
            Command::FormationMove { units, .. } => ("formation-move", units),
            Command::AttackMove { units, .. } => ("attack-move", units),
            Command::Attack { units, .. } => ("attack", units),
            Command::Follow { units, .. } => ("follow", units),
            Command::Gather { units, .. } => ("gather", units),
            Command::Build { units, .. } => ("build", units),
            Command::Stop { units } => ("stop", units),
            Command::Hold { units } => ("hold", units),
            Command::Delete { units } => ("delete", units),
            Command::Disband { units } => ("disband", units),
            Command::SetFormation { units, formation } => {
                write!(f, "formation {} ", formation_word(*formation))?;
                return write_units(f, units);
            }
            Command::PlaceBuilding {
                kind,
                at,
                turned,
                builders,
            } => {
                let turned = if *turned { " turned" } else { "" };
                write!(f, "place {kind} at {} {}{turned} by ", at.x, at.y)?;
                return write_units(f, builders);
            }
        };
        write!(f, "{verb} ")?;
        write_units(f, list)?;
        match self.0 {
            Command::Move { to, .. }
            | Command::FormationMove { to, .. }
            | Command::AttackMove { to, .. } => write!(f, " to {} {}", to.x, to.y),
            Command::Attack { target, .. }
            | Command::Follow { target, .. }
            | Command::Gather { target, .. }
            | Command::Build { target, .. } => write!(f, " on {}", target.0),
            _ => Ok(()),
        }
    }
}

fn formation_word(kind: FormationKind) -> &'static str {
    match kind {
        FormationKind::Line => "line",
        FormationKind::Staggered => "staggered",
        FormationKind::Box => "box",
        FormationKind::Flank => "flank",
        FormationKind::Shape => "shape",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_sim::{fx, fx_ratio};

    fn ids(list: &[u64]) -> Vec<EntityId> {
        list.iter().map(|&i| EntityId(i)).collect()
    }

    fn command(line: &str) -> Command {
        match parse_line(line) {
            Ok(Line::Command(c)) => c,
            other => panic!("`{line}` gave {other:?}"),
        }
    }

    #[test]
    fn move_names_units_and_an_exact_point() {
        assert_eq!(
            command("move 3 4 to 10.5 20"),
            Command::Move {
                units: ids(&[3, 4]),
                to: Vec2::new(fx_ratio(21, 2), fx(20)),
            }
        );
        assert_eq!(
            command("  AMOVE 7 to -1.25 0 "),
            Command::AttackMove {
                units: ids(&[7]),
                to: Vec2::new(-fx_ratio(5, 4), fx(0)),
            }
        );
    }

    #[test]
    fn every_sim_command_has_a_line() {
        let lines = [
            "move 1 to 2 3",
            "formation-move 1 2 to 2 3",
            "attack-move 1 to 2 3",
            "attack 5 on 9",
            "follow 5 on 9",
            "gather 5 on 12",
            "build 5 on 40",
            "place house at 30 31 by 5 6",
            "place gate at 30 31 turned by 5",
            "stop 3 4",
            "hold 3",
            "delete 8",
            "formation staggered 3 4 5",
            "disband 3 4 5",
        ];
        let mut seen = std::collections::HashSet::new();
        for l in lines {
            let c = command(l);
            seen.insert(std::mem::discriminant(&c));
            assert_eq!(command(&command_text(&c)), c, "round trip of `{l}`");
        }
        assert_eq!(seen.len(), 13, "one line per sim command");
    }

    #[test]
    fn bad_lines_say_what_was_expected() {
        let err = |l: &str| parse_line(l).unwrap_err();
        assert_eq!(err("dance 3"), TextError::UnknownVerb("dance".into()));
        assert!(err("move 3 4 10 20").to_string().contains("U… to X Y"));
        assert!(matches!(err("move to 1 2"), TextError::Usage { .. }));
        assert_eq!(err("move 3 to 1 y"), TextError::BadNumber("y".into()));
        assert_eq!(err("attack x on 9"), TextError::BadId("x".into()));
        assert_eq!(err("stop -3"), TextError::BadId("-3".into()));
        assert!(matches!(err("attack 5 on"), TextError::Usage { .. }));
        assert_eq!(
            err("formation circle 3"),
            TextError::BadFormation("circle".into())
        );
        assert_eq!(
            err("place house at 1.5 2 by 3"),
            TextError::BadTile("1.5".into())
        );
        assert!(matches!(
            err("place house 1 2 by 3"),
            TextError::Usage { .. }
        ));
        assert!(matches!(err("pause now"), TextError::Usage { .. }));
        assert!(matches!(err("chat   "), TextError::Usage { .. }));
        assert_eq!(err(&"x".repeat(MAX_LINE_BYTES + 1)), TextError::TooLong);
        let many = format!("stop {}", vec!["1"; MAX_UNITS_PER_COMMAND + 1].join(" "));
        assert_eq!(
            err(&many),
            TextError::TooManyUnits(MAX_UNITS_PER_COMMAND + 1)
        );
    }

    #[test]
    fn control_lines_and_comments() {
        assert_eq!(parse_line("").unwrap(), Line::Nothing);
        assert_eq!(parse_line("# a note").unwrap(), Line::Nothing);
        assert_eq!(parse_line("pause").unwrap(), Line::Pause);
        assert_eq!(parse_line("resume").unwrap(), Line::Resume);
        assert_eq!(parse_line("quit").unwrap(), Line::Leave);
        assert_eq!(parse_line("help").unwrap(), Line::Help);
        assert_eq!(
            parse_line("chat  good  game ").unwrap(),
            Line::Chat("good  game".into())
        );
    }

    #[test]
    fn coordinates_round_trip_through_text() {
        for bits in [
            0i64,
            1,
            -1,
            32768,
            45875,
            65535,
            65536 * 119 + 7,
            -(65536 * 3 + 5),
        ] {
            let c = Command::Move {
                units: ids(&[1]),
                to: Vec2::new(Fx::from_bits(bits), Fx::from_bits(-bits)),
            };
            assert_eq!(command(&command_text(&c)), c, "bits {bits}");
        }
    }
}
