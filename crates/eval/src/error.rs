//! The crate's error type.

/// Errors of the evaluation crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A player spec, SPRT string or other user text could not be parsed.
    #[error("{0}")]
    Spec(String),
    /// An opening (file line or move sequence) is not legal or not parseable.
    #[error("opening: {0}")]
    Opening(String),
    /// The Elo fit has no finite answer or did not converge.
    #[error("Elo fit: {0}")]
    Fit(String),
    /// A player failed to produce a move.
    #[error("player `{player}`: {message}")]
    Player {
        /// Name of the player.
        player: String,
        /// What went wrong.
        message: String,
    },
    /// A player could not choose a move (its game's or its own error is
    /// the `source`).
    #[error("player `{player}` could not move")]
    Move {
        /// Name of the player.
        player: String,
        /// Why.
        #[source]
        source: dama_game::GameError,
    },
    /// A player's search failed (the search's error, and through it the
    /// network's, is the `source`).
    #[error("player `{player}`: search failed")]
    Search {
        /// Name of the player.
        player: String,
        /// The search's error.
        #[source]
        source: dama_mcts::Error,
    },
    /// A checkpoint player's network could not be loaded or run (the
    /// network crate's error is the `source`).
    #[error("player `{player}`: network")]
    Network {
        /// Name of the player.
        player: String,
        /// The network's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// Reading or writing a file.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// JSON (de)serialisation.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// The error of player `player`'s [`Player::choose`]: this crate's own
    /// error as it was (a network's, a search's), anything else (the
    /// game's) as [`Error::Move`].
    ///
    /// [`Player::choose`]: dama_game::player::Player::choose
    pub fn from_move(player: &str, source: dama_game::GameError) -> Error {
        match source.downcast::<Error>() {
            Ok(own) => *own,
            Err(source) => Error::Move {
                player: player.to_owned(),
                source,
            },
        }
    }

    /// [`Error::Player`]: `player` failed to produce a move, for `message`.
    pub(crate) fn player(player: &str, message: String) -> Error {
        Error::Player {
            player: player.to_owned(),
            message,
        }
    }
}
