//! Bounded numbers on the command line: a thread count or a time that would
//! exhaust the machine is refused when the arguments are parsed, with the
//! bound in the message (issue 19).

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
    }
}
