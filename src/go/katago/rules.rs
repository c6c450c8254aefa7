//! KataGo's rules, by name or as its JSON object (`kata-get-rules`, `kata-set-rules` and the
//! analysis engine's `rules`), set beside the one ruleset ryoshi plays: area scoring, simple
//! ko, no suicide, no tax, no button, and white gets a point per handicap stone: KataGo's
//! `chinese` in all but `friendlyPassOk` (ryoshi's search ends its games after two passes with
//! every stone counted alive, so it captures before it passes).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One ruleset in KataGo's terms (the fields of `kata-get-rules`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KataRules {
    pub friendly_pass_ok: bool,
    pub has_button: bool,
    /// `SIMPLE`, `POSITIONAL` or `SITUATIONAL`.
    pub ko: String,
    /// `AREA` or `TERRITORY`.
    pub scoring: String,
    /// Multi-stone suicide allowed.
    pub suicide: bool,
    /// `NONE`, `SEKI` or `ALL`.
    pub tax: String,
    /// `0`, `N-1` or `N`.
    pub white_handicap_bonus: String,
}

/// Why a rules text is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("Could not parse rules: {0}")]
    Unknown(String),
}

crate::games::error_text!(derived: RulesError);

fn rules(
    ko: &str,
    scoring: &str,
    suicide: bool,
    tax: &str,
    bonus: &str,
    friendly: bool,
) -> KataRules {
    KataRules {
        friendly_pass_ok: friendly,
        has_button: false,
        ko: ko.into(),
        scoring: scoring.into(),
        suicide,
        tax: tax.into(),
        white_handicap_bonus: bonus.into(),
    }
}

impl KataRules {
    /// What ryoshi plays.
    pub fn ours() -> KataRules {
        rules("SIMPLE", "AREA", false, "NONE", "N", false)
    }

    /// A KataGo shorthand name (any case, `-`, `_` or nothing between words), as KataGo's
    /// GTP extensions document lists them.
    pub fn named(name: &str) -> Option<KataRules> {
        let key: String = name
            .trim()
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .collect::<String>()
            .to_ascii_lowercase();
        let mut r = match key.as_str() {
            "tromptaylor" => rules("POSITIONAL", "AREA", true, "NONE", "0", false),
            "chinese" => rules("SIMPLE", "AREA", false, "NONE", "N", true),
            "chineseogs" | "chinesekgs" => rules("POSITIONAL", "AREA", false, "NONE", "N", true),
            "japanese" | "korean" => rules("SIMPLE", "TERRITORY", false, "SEKI", "0", true),
            "stonescoring" => rules("SIMPLE", "AREA", false, "ALL", "0", true),
            "aga" | "bga" | "agabutton" => rules("SITUATIONAL", "AREA", false, "NONE", "N-1", true),
            "newzealand" => rules("SITUATIONAL", "AREA", true, "NONE", "0", true),
            _ => return None,
        };
        r.has_button = key == "agabutton";
        Some(r)
    }

    /// A name, or a JSON object whose missing fields take KataGo's defaults (Tromp-Taylor's).
    pub fn parse(value: &Value) -> Result<KataRules, RulesError> {
        let refuse = || RulesError::Unknown(crate::text::printable(&value.to_string()));
        match value {
            Value::String(name) => {
                // `kata-set-rules` takes the object as text too.
                if name.trim_start().starts_with('{') {
                    return match serde_json::from_str(name) {
                        Ok(inner @ Value::Object(_)) => Self::parse(&inner),
                        _ => Err(refuse()),
                    };
                }
                Self::named(name).ok_or_else(refuse)
            }
            Value::Object(map) => {
                let mut r = rules("POSITIONAL", "AREA", true, "NONE", "0", false);
                for (key, v) in map {
                    let word = |allowed: &[&str]| {
                        v.as_str()
                            .map(str::to_ascii_uppercase)
                            .filter(|w| allowed.contains(&w.as_str()))
                            .ok_or_else(refuse)
                    };
                    match key.as_str() {
                        "ko" => r.ko = word(&["SIMPLE", "POSITIONAL", "SITUATIONAL"])?,
                        "scoring" => r.scoring = word(&["AREA", "TERRITORY"])?,
                        "tax" => r.tax = word(&["NONE", "SEKI", "ALL"])?,
                        "whiteHandicapBonus" => r.white_handicap_bonus = word(&["0", "N-1", "N"])?,
                        "suicide" => r.suicide = v.as_bool().ok_or_else(refuse)?,
                        "hasButton" => r.has_button = v.as_bool().ok_or_else(refuse)?,
                        "friendlyPassOk" => r.friendly_pass_ok = v.as_bool().ok_or_else(refuse)?,
                        // The analysis engine's own `komi` field says it; a GTP `komi` too.
                        "komi" => {}
                        _ => return Err(refuse()),
                    }
                }
                Ok(r)
            }
            _ => Err(refuse()),
        }
    }

    /// Where these rules differ from what ryoshi plays, in words (empty: ryoshi plays them;
    /// `friendlyPassOk` and the handicap bonus are not counted, see the module's note and
    /// [`KataRules::handicap_bonus`]).
    pub fn differences(&self) -> Vec<String> {
        let ours = KataRules::ours();
        let mut out = Vec::new();
        if self.scoring != ours.scoring {
            out.push(format!("scoring {} (ryoshi scores by area)", self.scoring));
        }
        if self.ko != ours.ko {
            out.push(format!("ko {} (ryoshi checks simple ko only)", self.ko));
        }
        if self.suicide {
            out.push("suicide allowed (ryoshi forbids it)".into());
        }
        if self.tax != ours.tax {
            out.push(format!("tax {} (ryoshi taxes nothing)", self.tax));
        }
        if self.has_button {
            out.push("a button (ryoshi has none)".into());
        }
        out
    }

    /// White's points for `stones` black handicap stones under these rules.
    pub fn handicap_bonus(&self, stones: usize) -> f64 {
        match self.white_handicap_bonus.as_str() {
            "N" => stones as f64,
            "N-1" => stones.saturating_sub(1) as f64,
            _ => 0.0,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_objects_read_as_katago_documents_them() {
        let chinese = KataRules::named("Chinese").unwrap();
        assert!(chinese.differences().is_empty());
        assert_eq!(KataRules::parse(&json!("chinese")), Ok(chinese.clone()));
        let japanese = KataRules::parse(&json!("japanese")).unwrap();
        assert_eq!(japanese.differences().len(), 2, "{japanese:?}");
        assert_eq!(
            KataRules::named("tromp_taylor")
                .unwrap()
                .differences()
                .len(),
            2
        );
        assert_eq!(KataRules::named("aga").unwrap().handicap_bonus(4), 3.0);
        assert_eq!(KataRules::ours().handicap_bonus(4), 4.0);
        let object = json!({"ko":"SIMPLE","scoring":"AREA","suicide":false,"tax":"NONE",
            "hasButton":false,"whiteHandicapBonus":"N","friendlyPassOk":true});
        assert_eq!(KataRules::parse(&object), Ok(chinese.clone()));
        assert_eq!(KataRules::parse(&json!(object.to_string())), Ok(chinese));
        // The object's text round-trips; missing fields are Tromp-Taylor's.
        let ours = KataRules::ours();
        assert_eq!(
            KataRules::parse(&serde_json::from_str(&ours.to_json()).unwrap()),
            Ok(ours)
        );
        assert_eq!(
            KataRules::parse(&json!({"ko": "simple"}))
                .unwrap()
                .differences(),
            ["suicide allowed (ryoshi forbids it)"]
        );
        for bad in [
            json!("chess"),
            json!(3),
            json!({"ko": "NEVER"}),
            json!({"colour": 1}),
        ] {
            let e = KataRules::parse(&bad).unwrap_err().to_string();
            assert!(e.starts_with("Could not parse rules: "), "{e}");
        }
    }
}
