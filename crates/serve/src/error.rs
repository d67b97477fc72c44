//! Errors: [`Error`] for starting the server, [`ApiError`] for the answer
//! to one request (a status and a sentence, as JSON).

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// What can stop the server from starting or serving.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The address cannot be bound (in use, not allowed, not an address).
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The runs directory cannot be read.
    #[error("cannot read the runs directory {path}")]
    Runs {
        /// The directory.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The bot given on the command line cannot be built.
    #[error("cannot build the bot `{spec}`")]
    Bot {
        /// Its spec.
        spec: String,
        /// Why.
        #[source]
        source: dama_bot::Error,
    },
    /// An option out of its bounds.
    #[error("{0}")]
    Option(String),
    /// The server failed while serving.
    #[error("the server stopped")]
    Serve(#[source] std::io::Error),
}

/// The answer to a request that cannot be served: an HTTP status and one
/// sentence saying why, sent as `{"error": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The status (4xx for anything the request did wrong).
    pub status: StatusCode,
    /// What went wrong, in words.
    pub message: String,
}

impl ApiError {
    /// 400: the request is malformed.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// 404: no such game, run or file.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// 409: the request does not fit the game's state (not your turn, the
    /// game is over, the bot is thinking).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::CONFLICT,
            message: message.into(),
        }
    }

    /// 422: well formed, but not a legal move or position.
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            message: message.into(),
        }
    }

    /// 429: too many requests, games or bot jobs at once.
    pub fn too_many(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            message: message.into(),
        }
    }

    /// 500: the server's fault (a file of a run that cannot be read, a bot
    /// that failed).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status.as_u16(), self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        if self.status == StatusCode::TOO_MANY_REQUESTS {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        response
    }
}

impl From<JsonRejection> for ApiError {
    /// 415 without a JSON content type, 413 for a body over the limit, 400
    /// for malformed JSON, 422 for JSON of the wrong shape.
    fn from(r: JsonRejection) -> ApiError {
        ApiError {
            status: r.status(),
            message: r.body_text(),
        }
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> ApiError {
        ApiError::bad_request(r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::bad_request(r.body_text())
    }
}
