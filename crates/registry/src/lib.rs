//! The registry of games: the one place that names every game.
//!
//! A game is written once, in its own crate, behind the game seam
//! ([`dama_game::GameDef`]); this crate maps its name ([`GameName`]) to
//! that implementation ([`GameName::with`], which runs code written once
//! for every game with the game a name stands for), and names the rules a
//! network was trained under ([`GameRules`]) and its encoding
//! ([`Encoding`]: version, shapes and mirror symmetry).
//!
//! Checkpoints, game records and bundles carry the game's name and its
//! encoding version, so that a file of one game is refused by another by
//! name rather than by a shape mismatch deep in a tensor call.
//!
//! Adding a game: its crate implements [`GameDef`]; here, one variant of
//! [`GameName`] (with its names) and one arm in [`GameName::with`] and in
//! [`GameRules`]; a game whose alpha-beta engine learns its evaluation
//! ([`dama_nnue::LearnedGame`]) also gets one arm in
//! [`GameName::with_learned`].

use std::fmt;
use std::str::FromStr;

use dama_engine::Rules;
use dama_game::{GameDef, GameError, Shape};
use dama_nnue::LearnedGame;
use dama_tafl::TaflRules;
use serde::{Deserialize, Serialize};

/// The registry itself: one line per game (`Variant = "name" => its
/// GameDef type, [other names it answers to]`), the first the default.
/// The enums and their dispatch below are generated from it.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $def:ty, [$($alias:literal),*];)+) => {
        /// A game the trainer knows (the default: the registry's first).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum GameName {
            $(
                $(#[$doc])*
                #[serde(rename = $name)]
                $variant,
            )+
        }

        impl GameName {
            /// Every game, in registry order.
            pub const ALL: &'static [GameName] = &[$(GameName::$variant),+];

            /// The name in configs and files (`draughts`, `tafl`): the
            /// game's [`GameDef::NAME`].
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(GameName::$variant => <$def as GameDef>::NAME,)+
                }
            }

            /// The name in sentences (`Turkish draughts`): the game's
            /// [`GameDef::TITLE`].
            pub const fn title(self) -> &'static str {
                match self {
                    $(GameName::$variant => <$def as GameDef>::TITLE,)+
                }
            }

            /// Runs `code`, written once for every game, with the game this
            /// name stands for: the registry's one dispatch from a name to a
            /// type.
            pub fn with<W: WithGame>(self, code: W) -> W::Output {
                match self {
                    $(GameName::$variant => code.run::<$def>(),)+
                }
            }

            fn from_name(s: &str) -> Option<GameName> {
                $(
                    if s == $name $(|| s == $alias)* {
                        return Some(GameName::$variant);
                    }
                )+
                None
            }

            #[cfg(test)]
            fn literal(self) -> &'static str {
                match self {
                    $(GameName::$variant => $name,)+
                }
            }
        }

        /// The rules a network was trained under, with the game they belong
        /// to.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum GameRules {
            $(
                $(#[$doc])*
                $variant(<$def as GameDef>::Rules),
            )+
        }

        impl GameRules {
            /// The game.
            pub const fn name(&self) -> GameName {
                match self {
                    $(GameRules::$variant(_) => GameName::$variant,)+
                }
            }

            /// The rules of game `G`, if these are its rules. The game is
            /// told by its name (`GameDef::NAME`), not by its rules' type,
            /// so a game that reuses another's rules type (a 10 × 10
            /// draughts on `dama_engine::Rules`, say) is never taken for it.
            pub fn get<G: GameDef>(&self) -> Option<G::Rules> {
                if self.name().as_str() != G::NAME {
                    return None;
                }
                let rules: &dyn std::any::Any = match self {
                    $(GameRules::$variant(r) => r,)+
                };
                rules.downcast_ref::<G::Rules>().copied()
            }

            /// Game `G`'s rules `rules`, if the registry has `G` (told by
            /// its name, as [`GameRules::get`] does).
            pub fn new<G: GameDef>(rules: G::Rules) -> Option<GameRules> {
                let any: &dyn std::any::Any = &rules;
                $(
                    if <$def as GameDef>::NAME == G::NAME {
                        return any
                            .downcast_ref::<<$def as GameDef>::Rules>()
                            .map(|r| GameRules::$variant(*r));
                    }
                )+
                None
            }

            /// The default rules of `game`.
            pub fn default_for(game: GameName) -> GameRules {
                match game {
                    $(GameName::$variant => GameRules::$variant(Default::default()),)+
                }
            }

            /// The rules as their text (`variant=croda,…`).
            pub fn text(&self) -> String {
                match self {
                    $(GameRules::$variant(r) => r.to_string(),)+
                }
            }

            /// Parses `game`'s rules text.
            ///
            /// # Errors
            ///
            /// The game's error naming what it refuses.
            pub fn parse(game: GameName, text: &str) -> Result<GameRules, GameError> {
                match game {
                    $(GameName::$variant => Ok(GameRules::$variant(<$def as GameDef>::parse_rules(text)?)),)+
                }
            }

            /// `game`'s rules from their serde form (a TOML table of a
            /// config, a JSON object of a sidecar).
            ///
            /// # Errors
            ///
            /// The deserializer's error for unknown keys or bad values.
            pub fn deserialize_for<'de, D: serde::Deserializer<'de>>(
                game: GameName,
                de: D,
            ) -> Result<GameRules, D::Error> {
                match game {
                    $(GameName::$variant => Ok(GameRules::$variant(Deserialize::deserialize(de)?)),)+
                }
            }
        }

        impl Serialize for GameRules {
            /// The rules' own serde form (without the game's name).
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(GameRules::$variant(r) => r.serialize(s),)+
                }
            }
        }
    };
}

impl Default for GameName {
    fn default() -> Self {
        GameName::ALL[0]
    }
}

registry! {
    /// Turkish draughts and its variants (Armenian, Croda, Dameo): the
    /// variant is a rule option ([`Rules::variant`]). The default game.
    Draughts = "draughts" => dama_draughts::Draughts, ["dama", "turkish", "turkish-draughts"];
    /// Turkish Tafl (`crates/tafl`), on the 8 × 4 board.
    Tafl = "tafl" => dama_tafl::Tafl, ["turkish-tafl", "turkish_tafl"];
    /// Mini Turkish draughts (`crates/minidama`), on a 6 × 6 board.
    MiniDama = "minidama" => dama_minidama::MiniDama, ["mini", "mini-dama"];
}

impl GameName {
    /// The first game whose rules text `text` is (for telling a user who
    /// gave one game's rules to another which game they belong to).
    pub fn whose_rules(text: &str) -> Option<GameName> {
        struct Parses<'a>(&'a str);
        impl WithGame for Parses<'_> {
            type Output = bool;
            fn run<G: GameDef>(self) -> bool {
                G::parse_rules(self.0).is_ok()
            }
        }
        GameName::ALL.iter().copied().find(|g| g.with(Parses(text)))
    }

    /// The name of game `G`, if the registry has it.
    pub fn of<G: GameDef>() -> Option<GameName> {
        GameName::ALL
            .iter()
            .copied()
            .find(|g| g.as_str() == G::NAME)
    }

    /// The game's encoding.
    pub fn encoding(self) -> Encoding {
        struct Of(GameName);
        impl WithGame for Of {
            type Output = Encoding;
            fn run<G: GameDef>(self) -> Encoding {
                Encoding {
                    game: self.0,
                    version: G::ENCODING_VERSION,
                    shape: G::shape(),
                }
            }
        }
        self.with(Of(self))
    }
}

/// Code written once for every game ([`GameDef`]), run with the game a
/// [`GameName`] stands for by [`GameName::with`].
pub trait WithGame {
    /// What the code returns.
    type Output;

    /// Runs the code for game `G`.
    fn run<G: GameDef>(self) -> Self::Output;
}

/// Code written once for every game whose alpha-beta engine learns its
/// evaluation ([`LearnedGame`]), run by [`GameName::with_learned`].
pub trait WithLearnedGame {
    /// What the code returns.
    type Output;

    /// Runs the code for game `G`.
    fn run<G: LearnedGame>(self) -> Self::Output;
}

impl GameName {
    /// Runs `code` with the game this name stands for if its alpha-beta
    /// engine learns its evaluation ([`LearnedGame`]: learned-evaluator
    /// runs), else `None`. A game that implements [`LearnedGame`] gets one
    /// arm here.
    pub fn with_learned<W: WithLearnedGame>(self, code: W) -> Option<W::Output> {
        match self {
            GameName::Draughts => Some(code.run::<dama_draughts::Draughts>()),
            GameName::Tafl => Some(code.run::<dama_tafl::Tafl>()),
            GameName::MiniDama => None,
        }
    }

    /// Whether the game has endgame tables ([`GameDef::has_tables`]).
    pub fn has_tables(self) -> bool {
        struct HasTables;
        impl WithGame for HasTables {
            type Output = bool;
            fn run<G: GameDef>(self) -> bool {
                G::has_tables()
            }
        }
        self.with(HasTables)
    }

    /// The games whose engines learn their evaluation, in registry order.
    pub fn learned() -> Vec<GameName> {
        struct Yes;
        impl WithLearnedGame for Yes {
            type Output = ();
            fn run<G: LearnedGame>(self) {}
        }
        GameName::ALL
            .iter()
            .copied()
            .filter(|g| g.with_learned(Yes).is_some())
            .collect()
    }
}

impl fmt::Display for GameName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game name that is not one of [`GameName::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game `{0}` (expected {names})", names = GameName::ALL.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(", "))]
pub struct UnknownGame(pub String);

impl FromStr for GameName {
    type Err = UnknownGame;

    /// A game's name or one of its other names (`dama`, `turkish-tafl`),
    /// ignoring case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameName::from_name(&s.trim().to_ascii_lowercase()).ok_or_else(|| UnknownGame(s.to_owned()))
    }
}

/// The encoding of one game: what its networks read and write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoding {
    /// The game.
    pub game: GameName,
    /// Version of the layouts; a file of another version is refused.
    pub version: u32,
    /// Input planes and policy.
    pub shape: Shape,
}

impl Encoding {
    /// Writes the mirror image of encoded planes `src` into `dst` (the
    /// symmetry the replay buffer augments with: left-right for draughts,
    /// rows A ↔ D for Turkish Tafl).
    ///
    /// # Panics
    ///
    /// If a slice is not `shape.planes_len()` long.
    pub fn mirror_planes(&self, src: &[f32], dst: &mut [f32]) {
        struct Mirror<'a>(&'a [f32], &'a mut [f32]);
        impl WithGame for Mirror<'_> {
            type Output = ();
            fn run<G: GameDef>(self) {
                G::mirror_planes(self.0, self.1);
            }
        }
        self.game.with(Mirror(src, dst));
    }

    /// The policy index of the mirrored action (an involution).
    pub fn mirror_policy_index(&self, index: usize) -> usize {
        struct Mirror(usize);
        impl WithGame for Mirror {
            type Output = usize;
            fn run<G: GameDef>(self) -> usize {
                G::mirror_policy_index(self.0)
            }
        }
        self.game.with(Mirror(index))
    }
}

impl GameRules {
    /// The draughts rules, if these are draughts rules.
    pub fn draughts(&self) -> Option<Rules> {
        self.get::<dama_draughts::Draughts>()
    }

    /// The Turkish Tafl rules, if these are.
    pub fn tafl(&self) -> Option<TaflRules> {
        self.get::<dama_tafl::Tafl>()
    }
}

impl Default for GameRules {
    /// The default game's default rules.
    fn default() -> Self {
        GameRules::default_for(GameName::default())
    }
}

/// The rule fields that older checkpoints (`x.json`) and bundles
/// (`bundle.json`) kept for one game each, before every game other than
/// the default stored its rules as text (`game_rules_text`): read, never
/// written. A file's metadata flattens it (`#[serde(flatten)]`), so code
/// written once for every game reads older files without naming a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegacyRuleFields {
    /// Turkish Tafl's rules (`tafl_rules`), in Tafl checkpoints and bundles
    /// written before `game_rules_text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tafl_rules: Option<TaflRules>,
}

/// Why a file's rule fields ([`GameRules::from_file_fields`]) hold no
/// rules of its game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleFieldsError {
    /// `game_rules_text` does not parse as the game's rules.
    Text {
        /// The text.
        text: String,
        /// The game's refusal, in words.
        error: String,
    },
    /// The fields present do not fit the game: `game_rules_text` (or a
    /// legacy field) belongs exactly in a file of a game other than the
    /// default, with that game's rules.
    Misplaced,
}

impl GameRules {
    /// The `rules` and `game_rules_text` fields a new checkpoint sidecar or
    /// `bundle.json` writes for these rules: the default game's rules in
    /// `rules`, another game's as text (and the default game's defaults in
    /// `rules`).
    pub fn file_fields(&self) -> (Rules, Option<String>) {
        (
            self.draughts().unwrap_or_default(),
            (self.name() != GameName::default()).then(|| self.text()),
        )
    }

    /// The rules a checkpoint sidecar's or `bundle.json`'s fields hold
    /// (what [`GameRules::file_fields`] wrote, or an older file's legacy
    /// field) for a file of `game`.
    ///
    /// # Errors
    ///
    /// [`RuleFieldsError`]: text that does not parse, or fields that do not
    /// fit the game.
    pub fn from_file_fields(
        game: GameName,
        rules: Rules,
        text: Option<&str>,
        legacy: &LegacyRuleFields,
    ) -> Result<GameRules, RuleFieldsError> {
        let default = GameName::default();
        match (text, legacy.rules()) {
            (Some(text), None) if game != default => {
                GameRules::parse(game, text).map_err(|e| RuleFieldsError::Text {
                    text: text.to_owned(),
                    error: e.to_string(),
                })
            }
            (None, Some(r)) if r.name() == game => Ok(r),
            (None, None) if game == default => Ok(GameRules::from(rules)),
            _ => Err(RuleFieldsError::Misplaced),
        }
    }
}

impl LegacyRuleFields {
    /// The fields, for messages: `` `tafl_rules` (Turkish Tafl) ``.
    pub const FIELDS: &'static str = "`tafl_rules` (Turkish Tafl)";

    /// The rules an older file stored in these fields, if any.
    pub fn rules(&self) -> Option<GameRules> {
        self.tafl_rules.map(GameRules::Tafl)
    }

    /// The fields an older file of `rules`' game held (for tests and
    /// fuzzing of the legacy path); `None` for a game that never had such
    /// a field.
    pub fn holding(rules: &GameRules) -> Option<LegacyRuleFields> {
        rules.tafl().map(|r| LegacyRuleFields {
            tafl_rules: Some(r),
        })
    }
}

/// The per-game rule sections of older run configs (`config.toml`), before
/// `[rules]` held the options of every game: `[tafl]` (Turkish Tafl's
/// options). Read, never written; a run config flattens it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegacyRuleSections {
    /// Turkish Tafl's options, `[tafl]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tafl: Option<TaflRules>,
}

impl LegacyRuleSections {
    /// The rules an older config gave in these sections, with the section's
    /// name (`tafl`), if any.
    pub fn rules(&self) -> Option<(&'static str, GameRules)> {
        self.tafl.map(|r| ("tafl", GameRules::Tafl(r)))
    }

    /// The sections an older config of `rules`' game held (for tests);
    /// `None` for a game that never had its own section.
    pub fn holding(rules: &GameRules) -> Option<LegacyRuleSections> {
        rules.tafl().map(|r| LegacyRuleSections { tafl: Some(r) })
    }
}

impl fmt::Display for GameRules {
    /// `draughts (variant=croda,…)`, `tafl (first=defender,…)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.text())
    }
}

impl From<Rules> for GameRules {
    fn from(r: Rules) -> Self {
        GameRules::Draughts(r)
    }
}

impl From<&Rules> for GameRules {
    fn from(r: &Rules) -> Self {
        GameRules::Draughts(*r)
    }
}

impl From<TaflRules> for GameRules {
    fn from(r: TaflRules) -> Self {
        GameRules::Tafl(r)
    }
}

impl From<&TaflRules> for GameRules {
    fn from(r: &TaflRules) -> Self {
        GameRules::Tafl(*r)
    }
}

impl From<&GameRules> for GameRules {
    fn from(r: &GameRules) -> Self {
        *r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_draughts::Draughts;
    use dama_game::RuleOptionValues;
    use dama_tafl::Tafl;

    /// Every game's rule options are keys its rules text takes, each with
    /// its default value (alone, it gives the default rules); a game without tables
    /// finds none in any directory, and says so naming itself.
    #[test]
    fn every_game_declares_its_rule_options_and_tables() {
        struct Declared;
        impl WithGame for Declared {
            type Output = ();
            fn run<G: GameDef>(self) {
                for o in G::rule_options() {
                    let one = format!("{}={}", o.key, o.default);
                    assert_eq!(
                        G::parse_rules(&one).unwrap(),
                        G::Rules::default(),
                        "{}: {one}",
                        G::NAME
                    );
                    if let RuleOptionValues::Choice(values) = o.values {
                        assert!(values.contains(&o.default), "{}: {}", G::NAME, o.key);
                    }
                }
                if !G::has_tables() {
                    let dir = std::env::temp_dir();
                    match G::open_tables(&dir, &G::Rules::default()).unwrap() {
                        dama_game::OpenedTables::Absent(why) => {
                            assert!(why.contains(G::TITLE), "{why}");
                        }
                        dama_game::OpenedTables::Found { about, .. } => {
                            panic!("{} found tables: {about}", G::NAME)
                        }
                    }
                }
            }
        }
        for g in GameName::ALL {
            g.with(Declared);
        }
        assert!(GameName::Draughts.has_tables());
        assert!(!GameName::Tafl.has_tables());
        assert!(!Tafl::rule_options().is_empty() && !Draughts::rule_options().is_empty());
    }

    /// What code written once for every game assumes of each game, checked
    /// for every registered one: `startpos` parses to the start, texts
    /// round-trip, and a random game's decisions make its moves.
    #[test]
    fn every_game_keeps_the_seam_contract() {
        struct Contract;
        impl WithGame for Contract {
            type Output = ();
            fn run<G: GameDef>(self) {
                use dama_mcts::Game as _;
                let rules = G::Rules::default();
                let start = G::start(&rules);
                let text = G::position_text(&start);
                let parsed = G::parse_position(&rules, "startpos").unwrap();
                assert_eq!(G::position_text(&parsed), text, "{}", G::NAME);
                let again = G::parse_position(&rules, &text).unwrap();
                assert_eq!(G::position_text(&again), text, "{}", G::NAME);
                assert_eq!(G::parse_rules(&rules.to_string()).unwrap(), rules);
                // Decisions taken from the search state make the move played.
                let mut game = start;
                let mut seed = 7u64;
                for _ in 0..40 {
                    if G::outcome(&game).is_some() {
                        assert!(G::legal_moves(&game).is_empty(), "{}", G::NAME);
                        break;
                    }
                    let mut state = G::search_state(&game);
                    let to_play = G::to_play(&game);
                    let mut decisions = Vec::new();
                    let mut actions = Vec::new();
                    loop {
                        actions.clear();
                        state.legal_actions(&mut actions);
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        let a = actions[(seed >> 33) as usize % actions.len()];
                        decisions.push(a);
                        state.apply(a);
                        if G::complete_turn(&game, &decisions).is_ok() {
                            break;
                        }
                        assert_eq!(state.to_play(), to_play, "{}", G::NAME);
                    }
                    let mv = G::complete_turn(&game, &decisions).unwrap();
                    let reparsed = G::parse_move(&game, &mv.to_string()).unwrap();
                    assert_eq!(reparsed, mv, "{}", G::NAME);
                    G::play(&mut game, &mv).unwrap();
                }
            }
        }
        for &g in GameName::ALL {
            g.with(Contract);
        }
    }

    /// What a game declares of its own players
    /// ([`GameDef::own_capabilities`], what catalogues offer) is what
    /// [`GameDef::check_own`] accepts, at each bound and one past it.
    #[test]
    fn every_game_declares_the_own_players_it_checks() {
        use dama_game::{AlphaBetaLimit, AlphaBetaSpec, EvalSource, OwnError, OwnSpec};

        struct Declared;
        impl WithGame for Declared {
            type Output = ();
            fn run<G: GameDef>(self) {
                let ab = |limit, threads, eval: Option<EvalSource>| {
                    G::check_own(&OwnSpec::AlphaBeta(AlphaBetaSpec {
                        limit,
                        tt_mb: 1,
                        eval,
                        threads,
                    }))
                };
                let caps = G::own_capabilities();
                assert_eq!(
                    G::check_own(&OwnSpec::Greedy).is_ok(),
                    caps.greedy,
                    "{}",
                    G::NAME
                );
                let Some(a) = caps.alphabeta else {
                    assert!(
                        matches!(
                            ab(AlphaBetaLimit::Depth(1), 1, None),
                            Err(OwnError::NotAvailable)
                        ),
                        "{} declares no alpha-beta",
                        G::NAME
                    );
                    return;
                };
                let depth = |d| ab(AlphaBetaLimit::Depth(d), 1, None).is_ok();
                assert!(depth(1) && depth(a.max_depth), "{}", G::NAME);
                assert!(!depth(a.max_depth + 1), "{}", G::NAME);
                assert_eq!(
                    ab(AlphaBetaLimit::TimeMs(100), 1, None).is_ok(),
                    a.timed,
                    "{}",
                    G::NAME
                );
                let threads = |t| ab(AlphaBetaLimit::Depth(1), t, None).is_ok();
                assert!(
                    threads(a.max_threads) && !threads(a.max_threads + 1),
                    "{}",
                    G::NAME
                );
                let file = Some(EvalSource::File("x.nnue".into()));
                assert_eq!(
                    ab(AlphaBetaLimit::Depth(1), 1, file).is_ok(),
                    a.evaluator_files,
                    "{}",
                    G::NAME
                );
            }
        }
        for &g in GameName::ALL {
            g.with(Declared);
        }
    }

    /// What a game says it has ([`GameDef::check_own`]) it builds
    /// ([`GameDef::own_players`]), and its players move legally, within a
    /// time when told one; what it refuses it refuses in both. Its text
    /// for people follows the game to its end.
    #[test]
    fn every_game_s_own_players_and_text_keep_their_word() {
        use dama_game::{AlphaBetaLimit, AlphaBetaSpec, OwnError, OwnSpec};
        use rand::SeedableRng;
        use std::time::Duration;

        struct Own;
        impl WithGame for Own {
            type Output = ();
            fn run<G: GameDef>(self) {
                let ab = |limit, threads| {
                    OwnSpec::AlphaBeta(AlphaBetaSpec {
                        limit,
                        tt_mb: 1,
                        eval: None,
                        threads,
                    })
                };
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
                let start = G::start(&G::Rules::default());
                let tables = G::Tables::default();
                for spec in [
                    OwnSpec::Greedy,
                    ab(AlphaBetaLimit::Depth(2), 1),
                    ab(AlphaBetaLimit::TimeMs(20), 1),
                    ab(AlphaBetaLimit::Depth(2), 2),
                    ab(AlphaBetaLimit::Depth(200), 1),
                ] {
                    let said = G::check_own(&spec);
                    let built = G::own_players(&spec, &tables);
                    match (said, built) {
                        (Ok(()), Ok(factory)) => {
                            let mut p = factory.build("p");
                            assert_eq!(p.name(), "p");
                            let legal = G::legal_moves(&start);
                            let m = p.choose(&start, &mut rng).unwrap();
                            assert!(legal.contains(&m), "{} {spec:?}", G::NAME);
                            let c = p
                                .think(&start, Some(Duration::from_millis(20)), &mut rng)
                                .unwrap();
                            assert!(legal.contains(&c.best), "{} {spec:?}", G::NAME);
                            assert!(c.pv.is_empty() || c.pv[0] == c.best);
                        }
                        (Err(OwnError::NotAvailable), Err(OwnError::NotAvailable)) => {}
                        (Err(OwnError::Settings(a)), Err(OwnError::Settings(b))) => {
                            assert_eq!(a, b);
                            assert!(!a.is_empty());
                        }
                        (said, built) => panic!(
                            "{} {spec:?}: check_own {said:?}, own_players {:?}",
                            G::NAME,
                            built.err()
                        ),
                    }
                }
                // Text for people, from the start to the end.
                assert_eq!(G::end_text(&start), None, "{}", G::NAME);
                assert_eq!(G::status_text(&start), None, "{}", G::NAME);
                assert!(!G::board_text(&start, dama_mcts::Player::First).is_empty());
                assert!(!G::side_title(dama_mcts::Player::Second).is_empty());
                let mut game = start;
                let mut random = dama_game::player::RandomPlayer::default();
                let mut first = None;
                while G::outcome(&game).is_none() && G::plies(&game) < 2000 {
                    let m = dama_game::player::Player::<G>::choose(&mut random, &game, &mut rng)
                        .unwrap();
                    first.get_or_insert_with(|| m.to_string());
                    G::play(&mut game, &m).unwrap();
                }
                assert!(G::outcome(&game).is_some(), "{} never ended", G::NAME);
                assert!(G::end_text(&game).is_some(), "{}", G::NAME);
                let status = G::status_text(&game).unwrap();
                assert!(status.split(' ').count() >= 2, "{}: {status}", G::NAME);
                let record = G::record_text(&game, ["one", "two"], None);
                assert!(record.contains(&first.unwrap()), "{}: {record}", G::NAME);
                assert!(record.contains("one") && record.contains("two"));
            }
        }
        for &g in GameName::ALL {
            g.with(Own);
        }
    }

    /// Every game's rules survive a TOML round trip (a run's stored config,
    /// read on `--resume`), limits turned off included, and their text.
    #[test]
    fn every_game_s_rules_round_trip_through_toml() {
        struct Trip;
        impl WithGame for Trip {
            type Output = ();
            fn run<G: GameDef>(self) {
                let default = G::Rules::default().to_string();
                let mut texts = vec![default.clone()];
                for option in default.split([' ', ',']) {
                    if let Some((key, _)) = option.split_once('=') {
                        texts.push(format!("{key}=off"));
                    }
                }
                for text in texts {
                    // Options a game has no "off" for are refused by its parser.
                    let Ok(rules) = G::parse_rules(&text) else {
                        continue;
                    };
                    let toml = toml::to_string(&rules).unwrap();
                    let back: G::Rules = toml::from_str(&toml).unwrap();
                    assert_eq!(back, rules, "{}: `{text}` as {toml}", G::NAME);
                    assert_eq!(G::parse_rules(&rules.to_string()).unwrap(), rules);
                }
            }
        }
        for &g in GameName::ALL {
            g.with(Trip);
        }
    }

    #[test]
    fn every_game_is_registered_under_its_own_name() {
        for &g in GameName::ALL {
            assert_eq!(
                g.literal(),
                g.as_str(),
                "the registry line names the game's NAME"
            );
            assert_eq!(GameRules::default_for(g).name(), g);
            let rules = GameRules::default_for(g);
            assert_eq!(GameRules::parse(g, &rules.text()).unwrap(), rules);
            let json = serde_json::to_string(&g).unwrap();
            assert_eq!(json, format!("\"{}\"", g.as_str()));
        }
        assert_eq!(GameName::default(), GameName::Draughts);
        assert_eq!(
            GameRules::new::<Tafl>(TaflRules::default()),
            Some(GameRules::Tafl(TaflRules::default()))
        );
    }

    #[test]
    fn names_round_trip_and_strangers_are_refused() {
        for &g in GameName::ALL {
            assert_eq!(g.as_str().parse::<GameName>().unwrap(), g);
            assert_eq!(g.encoding().game, g);
        }
        assert_eq!(GameName::of::<Tafl>(), Some(GameName::Tafl));
        let tafl = GameRules::Tafl(TaflRules::default());
        assert_eq!(tafl.get::<Tafl>(), Some(TaflRules::default()));
        assert_eq!(tafl.get::<Draughts>(), None);
        assert_eq!(
            GameRules::Draughts(Rules::default()).get::<Draughts>(),
            Some(Rules::default())
        );
        assert_eq!(GameName::of::<Draughts>(), Some(GameName::Draughts));
        assert_eq!("Turkish-Tafl".parse::<GameName>().unwrap(), GameName::Tafl);
        assert_eq!(
            GameName::whose_rules("variant=croda"),
            Some(GameName::Draughts)
        );
        assert_eq!(
            GameName::whose_rules("first=king_side"),
            Some(GameName::Tafl)
        );
        assert_eq!(GameName::whose_rules("colour=green"), None);
        let err = "chess".parse::<GameName>().unwrap_err();
        assert!(err.to_string().contains("chess"), "{err}");
    }

    /// A file's metadata as checkpoints and bundles flatten the legacy
    /// fields into it.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sidecar {
        game: GameName,
        #[serde(flatten)]
        legacy: LegacyRuleFields,
    }

    #[test]
    fn legacy_rule_fields_read_older_files_and_are_never_written() {
        let tafl = GameRules::parse(GameName::Tafl, "first=defender").unwrap();
        let old = r#"{"game":"tafl","tafl_rules":{"first":"defender"}}"#;
        let read: Sidecar = serde_json::from_str(old).unwrap();
        assert_eq!(read.legacy.rules(), Some(tafl));
        assert_eq!(LegacyRuleFields::holding(&tafl), Some(read.legacy));
        let new = Sidecar {
            game: GameName::Tafl,
            legacy: LegacyRuleFields::default(),
        };
        assert_eq!(
            serde_json::to_string(&new).unwrap(),
            r#"{"game":"tafl"}"#,
            "nothing is written"
        );
        assert_eq!(LegacyRuleFields::default().rules(), None);
        assert_eq!(LegacyRuleFields::holding(&GameRules::default()), None);
        // Unknown keys are still refused by name next to the flattened ones.
        let err = serde_json::from_str::<Sidecar>(r#"{"game":"tafl","colour":1}"#).unwrap_err();
        assert!(err.to_string().contains("colour"), "{err}");
        let sections = LegacyRuleSections::holding(&tafl).unwrap();
        assert_eq!(sections.rules(), Some(("tafl", tafl)));
        assert_eq!(LegacyRuleSections::default().rules(), None);
    }

    #[test]
    fn each_game_mirrors_its_own_planes_and_policy() {
        for &g in GameName::ALL {
            let enc = g.encoding();
            let n = enc.shape.planes_len();
            let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let mut once = vec![0.0; n];
            let mut twice = vec![0.0; n];
            enc.mirror_planes(&src, &mut once);
            enc.mirror_planes(&once, &mut twice);
            assert_ne!(once, src, "{g}: the mirror moves values");
            assert_eq!(twice, src, "{g}: the mirror is an involution");
            for i in 0..enc.shape.policy_size() {
                let m = enc.mirror_policy_index(i);
                assert!(m < enc.shape.policy_size());
                assert_eq!(enc.mirror_policy_index(m), i);
            }
        }
    }
}
