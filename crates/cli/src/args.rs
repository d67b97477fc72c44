//! Bounded numbers on the command line: a thread count, a time or a count
//! that would exhaust the machine (issue 19), or a count of nothing where
//! one is needed (`--games 0`, `--sims 0`), is refused when the arguments
//! are parsed, with the flag and the allowed range in the message.

/// A thread count: 0 (one per core) up to [`dama_nn::device::max_threads`].
pub fn threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("`{s}` is not a thread count"))?;
    dama_nn::device::check_threads("the thread count", n).map_err(|e| e.to_string())
}

/// A thinking time in milliseconds: 1 up to one hour
/// ([`dama_eval::MAX_MOVE_TIME_MS`]).
pub fn move_time_ms(s: &str) -> Result<u64, String> {
    let ms: u64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of milliseconds"))?;
    if ms == 0 || ms > dama_eval::MAX_MOVE_TIME_MS {
        return Err(format!(
            "must be in 1..={} ms (one hour), got {ms}",
            dama_eval::MAX_MOVE_TIME_MS
        ));
    }
    Ok(ms)
}

/// Simulations per move: 1 up to [`dama_mcts::MAX_SIMULATIONS`].
pub fn sims(s: &str) -> Result<u32, String> {
    let n: u32 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of simulations"))?;
    if n == 0 || n > dama_mcts::MAX_SIMULATIONS {
        return Err(format!(
            "must be in 1..={}, got {n}",
            dama_mcts::MAX_SIMULATIONS
        ));
    }
    Ok(n)
}

/// The most games of one match (`dama eval --games`): a million. A match
/// draws its openings and sets aside room for its games' records up front,
/// so a bigger number would exhaust memory before the first game.
pub const MAX_MATCH_GAMES: u32 = 1_000_000;

/// Games of a match: 1 up to [`MAX_MATCH_GAMES`].
pub fn match_games(s: &str) -> Result<u32, String> {
    let n: u32 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of games"))?;
    if n == 0 || n > MAX_MATCH_GAMES {
        return Err(format!("must be in 1..={MAX_MATCH_GAMES}, got {n}"));
    }
    Ok(n)
}

/// The most random opening plies of a Turkish Tafl match: 10000, the
/// longest ply limit its rules allow (`ply_limit`).
pub const MAX_OPENING_PLIES: u32 = 10_000;

/// Random opening plies of a Turkish Tafl match: 0 up to
/// [`MAX_OPENING_PLIES`].
pub fn opening_plies(s: &str) -> Result<u32, String> {
    let n: u32 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of plies"))?;
    if n > MAX_OPENING_PLIES {
        return Err(format!("must be in 0..={MAX_OPENING_PLIES}, got {n}"));
    }
    Ok(n)
}

/// `--balanced`: an opening's largest score, 1 to 10000 centi-men.
pub fn balance_margin(s: &str) -> Result<i32, String> {
    let n: i32 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a score in centi-men"))?;
    if !(1..=10_000).contains(&n) {
        return Err(format!("must be in 1..=10000 centi-men, got {n}"));
    }
    Ok(n)
}

/// `--rules` text read as the rules of `game`, by that game: a text that
/// is another game's rules is named as such.
pub fn game_rules(game: dama_nn::GameName, text: &str) -> anyhow::Result<dama_nn::GameRules> {
    dama_nn::GameRules::parse(game, text).map_err(|e| match dama_nn::GameName::whose_rules(text) {
        Some(other) if other != game => anyhow::anyhow!(
            "--rules `{text}` are {} rules, not rules of {} (--game {other} plays it): {e}",
            other.title(),
            game.title()
        ),
        _ => anyhow::anyhow!("--rules `{text}`: bad {} rules: {e}", game.title()),
    })
}

/// The part of a run's name that `--rules` text adds: the value of its
/// first option (`variant=croda` → `croda`), in letters, digits, `_`, `-`.
pub fn rules_stem(text: &str) -> Option<String> {
    let first = text.split([',', ' ', '\t']).find(|p| !p.is_empty())?;
    let value = first.split_once('=').map_or(first, |(_, v)| v);
    let stem: String = value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    (!stem.is_empty()).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_numbers_are_refused_with_the_bound() {
        let err = threads("100000").unwrap_err();
        assert!(
            err.contains(&dama_nn::device::max_threads().to_string()),
            "{err}"
        );
        assert_eq!(threads("1").unwrap(), 1);
        let err = move_time_ms("18446744073709551615").unwrap_err();
        assert!(err.contains("3600000"), "{err}");
        assert_eq!(move_time_ms("100").unwrap(), 100);
        assert!(sims("0").is_err() && sims("4000000000").is_err());
        let err = match_games("0").unwrap_err();
        assert!(err.contains("1..=1000000"), "{err}");
        assert!(match_games("1000001").is_err() && match_games("-1").is_err());
        assert_eq!(match_games("2").unwrap(), 2);
        assert_eq!(opening_plies("0").unwrap(), 0);
        assert!(opening_plies("10001").unwrap_err().contains("0..=10000"));
    }

    #[test]
    fn rules_text_is_read_by_the_game_and_named_in_run_names() {
        for &g in dama_nn::GameName::ALL {
            let rules = dama_nn::GameRules::default_for(g);
            assert_eq!(game_rules(g, &rules.text()).unwrap(), rules);
            let err = game_rules(g, "colour=green").unwrap_err().to_string();
            assert!(
                err.contains("colour=green") && err.contains(g.title()),
                "{err}"
            );
        }
        assert_eq!(
            rules_stem("variant=croda,no_capture_limit=off").as_deref(),
            Some("croda")
        );
        assert_eq!(rules_stem(" ply_limit=90").as_deref(), Some("90"));
        assert_eq!(rules_stem(""), None);
        assert_eq!(rules_stem("x=../"), None);
    }
}
