//! What every request passes first: the `Host` check of a loopback server,
//! a per-client token bucket (429 beyond it), and the security headers of
//! every answer.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::AppState;

/// Clients remembered by the rate limiter; beyond, clients with a full
/// bucket are forgotten (they lose nothing).
const MAX_CLIENTS: usize = 10_000;

/// The rate limiter and the host check.
#[derive(Debug)]
pub(crate) struct Guard {
    rate: f64,
    burst: f64,
    loopback_only: bool,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Guard {
    pub fn new(rate_per_sec: u32, burst: u32, loopback_only: bool) -> Guard {
        Guard {
            rate: f64::from(rate_per_sec),
            burst: f64::from(burst.max(1)),
            loopback_only,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token of `ip`'s bucket; false when it is empty.
    fn allow(&self, ip: IpAddr) -> bool {
        if self.rate <= 0.0 {
            return true;
        }
        let now = Instant::now();
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() >= MAX_CLIENTS && !buckets.contains_key(&ip) {
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let (tokens, at) = buckets.entry(ip).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.rate).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Whether a `Host` header names the loopback interface.
fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        // [::1]:8080
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The middleware: host check, rate limit, then the handler, then headers.
pub(crate) async fn guard(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let guard = &state.guard;
    if guard.loopback_only {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !loopback_host(host) {
            return ApiError {
                status: axum::http::StatusCode::MISDIRECTED_REQUEST,
                message: format!(
                    "this server listens on the loopback address and answers only for \
                     localhost, not for the host `{}`",
                    host.escape_default()
                ),
            }
            .into_response();
        }
    }
    let ip = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    if let Some(ip) = ip {
        if !guard.allow(ip) {
            return ApiError::too_many("too many requests: slow down").into_response();
        }
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]:8080",
            "LOCALHOST",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.example",
            "evil.example:8080",
            "10.0.0.1",
            "localhost.evil",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn the_bucket_empties_and_refills() {
        let g = Guard::new(1000, 5, false);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        assert!((0..5).all(|_| g.allow(ip)));
        assert!(!g.allow(ip));
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(g.allow(ip));
        assert!(Guard::new(0, 1, false).allow(ip));
    }
}
