//! Lists of attention levels in `config.toml` (`[notifications] levels`, `[sound]
//! levels`): each name checked on its own, so one unknown name leaves the others in force.

use super::problem::Problem;
use crate::model::Attention;
use std::collections::BTreeSet;
use toml_edit::Item;

/// The names a level list accepts, for the messages.
pub const ACCEPTED: &str = "permission_required, input_required, error, warning, unread \
                            (or permission, input, question)";

/// A level named in the file: the wire name (`permission_required`) or the short word
/// (`permission`, `input`, `question`); `none` is no level.
pub fn level(name: &str) -> Option<Attention> {
    match name {
        "permission" => Some(Attention::PermissionRequired),
        "input" | "question" => Some(Attention::InputRequired),
        other => Attention::parse(other).filter(|a| *a != Attention::None),
    }
}

/// The levels of the list `item` at `entry`; each unknown name or non-string element is a
/// [`Problem`] and is left out. `None` (and a problem) when `item` is no array.
pub fn read(entry: &str, item: &Item, problems: &mut Vec<Problem>) -> Option<BTreeSet<Attention>> {
    let Some(array) = item.as_array() else {
        problems.push(Problem::new(
            entry,
            format!("not a list of levels (accepted: {ACCEPTED})"),
        ));
        return None;
    };
    let mut levels = BTreeSet::new();
    for value in array.iter() {
        match value.as_str().map(|n| (n, level(n))) {
            Some((_, Some(l))) => {
                levels.insert(l);
            }
            Some((name, None)) => problems.push(Problem::new(
                entry,
                format!("unknown level {name:?} (accepted: {ACCEPTED})"),
            )),
            None => problems.push(Problem::new(
                entry,
                format!(
                    "{} is not a level name (accepted: {ACCEPTED})",
                    value.to_string().trim()
                ),
            )),
        }
    }
    Some(levels)
}
