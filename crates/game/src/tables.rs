//! A game's endgame tables as the layers above the seam see them: opened
//! by the game ([`GameDef::open_tables`]), held without naming their type
//! ([`AnyTables`]) and handed back to the game that opened them.

use std::any::Any;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::GameDef;

/// What [`GameDef::open_tables`] found in a directory.
#[derive(Clone, Debug)]
pub enum OpenedTables<T> {
    /// Tables for the rules asked, with a phrase saying what they hold
    /// (`5 pieces`).
    Found {
        /// The game's tables.
        tables: T,
        /// What they hold, for a note.
        about: String,
    },
    /// No tables for these rules, and why in one sentence: no such
    /// directory, no table in it, tables of other rules, or a game that
    /// has none. Not an error: a caller that asked for tables explicitly
    /// may make it one.
    Absent(String),
}

/// A table file that cannot be used: unreadable, truncated, damaged, of
/// another format (each names the file).
#[derive(Debug, thiserror::Error)]
#[error("cannot read the endgame tables in {}", dir.display())]
pub struct TablesError {
    /// The directory opened.
    pub dir: PathBuf,
    /// The game's own error.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

/// Some game's endgame tables, or none, held by a layer that does not name
/// the game (a player's build options, a run): [`AnyTables::of`] wraps the
/// tables a game opened, [`AnyTables::get`] gives them back to that game,
/// and gives any other game its default (no tables).
#[derive(Clone, Default)]
pub struct AnyTables(Option<Arc<dyn Any + Send + Sync>>);

impl AnyTables {
    /// No tables.
    pub fn none() -> AnyTables {
        AnyTables(None)
    }

    /// `G`'s tables.
    pub fn of<G: GameDef>(tables: G::Tables) -> AnyTables {
        AnyTables(Some(Arc::new(tables)))
    }

    /// The tables as `G`'s, if `G` opened them; `G`'s default (none)
    /// otherwise.
    pub fn get<G: GameDef>(&self) -> G::Tables {
        self.0
            .as_deref()
            .and_then(|t| t.downcast_ref::<G::Tables>())
            .cloned()
            .unwrap_or_default()
    }

    /// Whether there are no tables.
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }
}

impl fmt::Debug for AnyTables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "AnyTables(some)"
        } else {
            "AnyTables(none)"
        })
    }
}
