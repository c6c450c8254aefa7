//! The `[match]` keys a game declares for itself (its [`MatchOption`]s), read beside the
//! runner's own: the runner's keys are the fields of [`MatchConfig`], which refuses any other,
//! so a game's key is taken out of the table on the way and kept as a number. Each key keeps
//! its place in toml's messages (its line), and a key nobody knows is refused as before, with
//! the games' keys named after the runner's.
//!
//! [`MatchOption`]: crate::games::rules::MatchOption

use super::config::MatchConfig;
use crate::registry::Game;
use serde::de::value::{Error as ValueError, MapAccessDeserializer};
use serde::de::{DeserializeSeed, Deserializer, Error as _, IntoDeserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// The `[match]` table: [`MatchConfig`], with the game keys given in it in `game_options`.
pub fn match_table<'de, D: Deserializer<'de>>(d: D) -> Result<MatchConfig, D::Error> {
    d.deserialize_map(Table)
}

/// A key some game of the registry declares, as it declares it.
fn game_key(key: &str) -> Option<&'static str> {
    Game::ALL
        .iter()
        .flat_map(|g| g.settings().options)
        .map(|o| o.key)
        .find(|k| *k == key)
}

/// Every game's keys, once each, in alphabetical order: `` `a` ``, `` `a`, `b` ``.
fn game_keys() -> String {
    let mut keys: Vec<&str> = Game::ALL
        .iter()
        .flat_map(|g| g.settings().options)
        .map(|o| o.key)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    keys.join(", ")
}

struct Table;

impl<'de> Visitor<'de> for Table {
    type Value = MatchConfig;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct MatchConfig")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MatchConfig, A::Error> {
        let mut own = Vec::new();
        let keys = GameKeys { map, own: &mut own };
        let mut play = MatchConfig::deserialize(MapAccessDeserializer::new(keys))?;
        play.game_options = own;
        Ok(play)
    }
}

/// The table's entries with the game keys taken out (into `own`).
struct GameKeys<'a, A> {
    map: A,
    own: &'a mut Vec<(&'static str, f64)>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for GameKeys<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let mut seed = Some(seed);
        loop {
            // Read through the table's own key reader, so that an error keeps the key's place.
            match self.map.next_key_seed(Key { seed: &mut seed })? {
                None => return Ok(None),
                Some(Read::Runner(value)) => return Ok(Some(value)),
                Some(Read::Game(key)) => {
                    let value: f64 = self.map.next_value()?;
                    self.own.push((key, value));
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A key read: one of a game's, or one for the runner's fields (`seed` read it).
enum Read<T> {
    Game(&'static str),
    Runner(T),
}

struct Key<'s, K> {
    seed: &'s mut Option<K>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for Key<'_, K> {
    type Value = Read<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let key = String::deserialize(d)?;
        if let Some(own) = game_key(&key) {
            return Ok(Read::Game(own));
        }
        let seed = self
            .seed
            .take()
            .ok_or_else(|| D::Error::custom("a key was read twice"))?;
        // The runner's fields refuse any other key (`deny_unknown_fields`), in serde's words.
        let text: serde::de::value::StrDeserializer<ValueError> = key.as_str().into_deserializer();
        seed.deserialize(text)
            .map(Read::Runner)
            .map_err(|e| D::Error::custom(format!("{e}, or a game's own {}", game_keys())))
    }
}
