//! `ryoshi match CONFIG --set KEY=VALUE`: any key of the configuration, set from the command
//! line.
//!
//! KEY is the key's path in the file, its tables joined with dots (`match.games`,
//! `match.sprt.elo1`); an `[[engine]]` entry is picked by its name (`engine.NAME.options.Threads`).
//! VALUE is a TOML value (`200`, `true`, `"text"`, `["a", "b"]`); anything that is not one is
//! taken as a string, so that `cmd=/opt/bin/engine` needs no quotes through a shell. An empty
//! VALUE removes the key (to trade one time control for another); a key that is not there is
//! refused. The overrides change the
//! file's table before it is read, so a wrong key or type is refused exactly as in the file.

use nom::branch::alt;
use nom::bytes::complete::{is_not, take_while1};
use nom::character::complete::char;
use nom::combinator::{all_consuming, rest};
use nom::multi::separated_list1;
use nom::sequence::{delimited, separated_pair};
use nom::IResult;
use toml::{Table, Value};

/// One `--set KEY=VALUE`: the key's path, and the value (`None`: remove the key).
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// The argument as given, for messages.
    pub text: String,
    pub path: Vec<String>,
    pub value: Option<Value>,
}

/// Why a `--set` is refused (the argument as given, and why).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--set {text}: {why}")]
pub struct OverrideError {
    pub text: String,
    pub why: String,
}

crate::games::error_text!(derived: OverrideError);

/// A path segment: a bare TOML key, or a quoted one (an engine named `my engine`).
fn segment(input: &str) -> IResult<&str, &str> {
    let bare = take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let quoted = delimited(char('"'), is_not("\""), char('"'));
    alt((bare, quoted))(input)
}

/// `KEY=VALUE`: the key's segments and the value's text.
fn assignment(input: &str) -> IResult<&str, (Vec<&str>, &str)> {
    all_consuming(separated_pair(
        separated_list1(char('.'), segment),
        char('='),
        rest,
    ))(input)
}

/// A value's text as TOML, or as a string when it is no TOML value.
fn value(text: &str) -> Value {
    let text = text.trim();
    if !text.contains(['\n', '\r']) {
        if let Ok(mut table) = toml::from_str::<Table>(&format!("v = {text}")) {
            if table.len() == 1 {
                if let Some(value) = table.remove("v") {
                    return value;
                }
            }
        }
    }
    Value::String(text.to_string())
}

impl Override {
    /// Parses `KEY=VALUE`.
    pub fn parse(text: &str) -> Result<Override, OverrideError> {
        let refuse = |why: &str| OverrideError {
            text: text.to_string(),
            why: why.to_string(),
        };
        let (_, (path, value_text)) = assignment(text).map_err(|_| {
            refuse("expected KEY=VALUE, KEY a dotted path such as match.games or engine.NAME.options.Threads")
        })?;
        if path[0] == "engine" && path.len() < 3 {
            return Err(refuse(
                "an engine's key is engine.NAME.KEY (NAME its `name`)",
            ));
        }
        let value = (!value_text.trim().is_empty()).then(|| value(value_text));
        Ok(Override {
            text: text.to_string(),
            path: path.into_iter().map(str::to_string).collect(),
            value,
        })
    }

    /// Sets (or removes) the key in the configuration's `table`.
    pub fn apply(&self, table: &mut Table) -> Result<(), OverrideError> {
        let refuse = |why: String| OverrideError {
            text: self.text.clone(),
            why,
        };
        let (mut table, keys) = if self.path[0] == "engine" {
            (
                engine_table(table, &self.path[1]).map_err(|e| refuse(e.to_string()))?,
                &self.path[2..],
            )
        } else {
            (table, &self.path[..])
        };
        let Some((last, tables)) = keys.split_last() else {
            return Ok(());
        };
        for (depth, key) in tables.iter().enumerate() {
            let entry = table
                .entry(key.clone())
                .or_insert_with(|| Value::Table(Table::new()));
            table = match entry {
                Value::Table(inner) => inner,
                _ => {
                    let at = self.path[..self.path.len() - keys.len() + depth + 1].join(".");
                    return Err(refuse(format!("`{at}` is a value, not a table")));
                }
            };
        }
        match &self.value {
            Some(value) => {
                table.insert(last.clone(), value.clone());
            }
            None => {
                if table.remove(last).is_none() {
                    let key = self.text.trim_end_matches('=');
                    return Err(refuse(format!("no `{key}` to remove")));
                }
            }
        }
        Ok(())
    }
}

/// No `[[engine]]` has the name a `--set engine.NAME...` gives.
#[derive(Debug, thiserror::Error)]
enum NoEngine {
    #[error("no [[engine]] is named `{name}` (there are none)")]
    NoneAtAll { name: String },
    #[error("no [[engine]] is named `{name}` (the engines: {names})")]
    Others { name: String, names: String },
}

/// The `[[engine]]` table named `name`.
fn engine_table<'t>(table: &'t mut Table, name: &str) -> Result<&'t mut Table, NoEngine> {
    let engines = match table.get_mut("engine") {
        Some(Value::Array(engines)) => engines.as_mut_slice(),
        _ => &mut [],
    };
    let names: Vec<String> = engines
        .iter()
        .filter_map(|e| e.get("name")?.as_str())
        .map(|n| format!("`{n}`"))
        .collect();
    let found = engines
        .iter_mut()
        .filter_map(Value::as_table_mut)
        .find(|e| e.get("name").and_then(Value::as_str) == Some(name));
    let name = name.to_string();
    found.ok_or_else(|| match names.is_empty() {
        true => NoEngine::NoneAtAll { name },
        false => NoEngine::Others {
            name,
            names: names.join(", "),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (Vec<String>, Option<Value>) {
        let o = Override::parse(text).unwrap();
        (o.path, o.value)
    }

    #[test]
    fn keys_and_values_parse() {
        let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parsed("match.games=200"),
            (path(&["match", "games"]), Some(Value::Integer(200)))
        );
        assert_eq!(
            parsed("engine.\"my.engine\".options.Threads=2"),
            (
                path(&["engine", "my.engine", "options", "Threads"]),
                Some(Value::Integer(2))
            )
        );
        let (_, v) = parsed("match.engines=[\"a\", \"c\"]");
        assert_eq!(v.unwrap().as_array().map(Vec::len), Some(2));
        assert_eq!(parsed("match.komi=6.5").1, Some(Value::Float(6.5)));
        assert_eq!(
            parsed("engine.a.untimed=true").1,
            Some(Value::Boolean(true))
        );
        // Not TOML: a string, as a shell leaves a path or a word.
        for (text, want) in [
            ("engine.a.cmd=/opt/bin/x y", "/opt/bin/x y"),
            ("match.variant=go", "go"),
            ("match.games=2O0", "2O0"),
            ("match.results=\"r.jsonl\"", "r.jsonl"),
            ("engine.a.cmd=1\nb = 2", "1\nb = 2"),
        ] {
            assert_eq!(parsed(text).1, Some(Value::String(want.into())), "{text}");
        }
        assert_eq!(parsed("match.byoyomi_ms=").1, None);
        for bad in [
            "",
            "games",
            "=3",
            "match..games=3",
            "match.games 3",
            "match games=3",
            "engine.a=3",
            "engine=3",
            "match.\"unterminated=3",
        ] {
            let err = Override::parse(bad).unwrap_err().to_string();
            assert!(err.starts_with(&format!("--set {bad}: ")), "{err}");
        }
    }

    #[test]
    fn overrides_set_create_and_remove_keys() {
        let mut table: Table = toml::from_str(
            "[[engine]]\nname = \"a\"\ncmd = \"x\"\n[[engine]]\nname = \"b\"\ncmd = \"y\"\n\
             options = { Hash = 16 }\n[match]\ngames = 2\nbyoyomi_ms = 100\n",
        )
        .unwrap();
        for text in [
            "match.games=200",
            "engine.b.options.Threads=2",
            "engine.a.options.Threads=4",
            "match.byoyomi_ms=",
            "match.nodes=1000",
            "match.sprt.elo1=5",
        ] {
            Override::parse(text).unwrap().apply(&mut table).unwrap();
        }
        let want: Table = toml::from_str(
            "[[engine]]\nname = \"a\"\ncmd = \"x\"\noptions = { Threads = 4 }\n[[engine]]\n\
             name = \"b\"\ncmd = \"y\"\noptions = { Hash = 16, Threads = 2 }\n[match]\n\
             games = 200\nnodes = 1000\nsprt = { elo1 = 5 }\n",
        )
        .unwrap();
        assert_eq!(table, want);
        let refused = |text: &str, want: &str| {
            let err = Override::parse(text)
                .unwrap()
                .apply(&mut table.clone())
                .unwrap_err()
                .to_string();
            assert_eq!(err, format!("--set {text}: {want}"));
        };
        refused(
            "engine.c.cmd=z",
            "no [[engine]] is named `c` (the engines: `a`, `b`)",
        );
        refused("match.games.x=1", "`match.games` is a value, not a table");
        refused("match.byoyomi_ms=", "no `match.byoyomi_ms` to remove");
        refused("engine.a.cmd.x=1", "`engine.a.cmd` is a value, not a table");
        let mut empty = Table::new();
        let err = Override::parse("engine.a.cmd=z").unwrap().apply(&mut empty);
        assert!(err.unwrap_err().why.contains("there are none"));
    }
}
