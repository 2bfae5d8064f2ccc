//! What a check run reports, and the executors' internal result.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::transform::Transformed;

/// The result of one check run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Outcome {
    /// Healthy (`true`) or unhealthy.
    pub passed: bool,
    /// What the check found, or the `display` expression's text.
    pub message: String,
    /// Why the check failed; `None` when it passed.
    pub error: Option<String>,
    /// How long the check itself took (expressions excluded).
    pub duration: Duration,
    /// The check's result variables (e.g. `code`, `content` for http), as seen by expressions.
    pub details: Value,
    /// Results of other checks that the `transform` expression produced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub transformed: Vec<Transformed>,
    /// How many times the check ran: 1, plus the retries its `retries` allowed
    /// after failures; 0 when it could not run at all (a spec that does not parse).
    pub attempts: u32,
}

impl Outcome {
    pub(crate) fn failed(error: impl Into<String>, duration: Duration) -> Self {
        Self {
            passed: false,
            message: String::new(),
            error: Some(error.into()),
            duration,
            details: Value::Object(Default::default()),
            transformed: Vec::new(),
            attempts: 0,
        }
    }
}

/// What an executor found before `test` and `display` are applied.
#[derive(Debug)]
pub(crate) struct Probe {
    pub verdict: Verdict,
    pub message: String,
    pub details: Value,
}

#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    Pass,
    /// Fails whatever `test` says.
    Fail(String),
    /// Fails unless a `test` expression is given and passes (e.g. a non-zero exit code).
    FailUnlessTested(String),
}

impl Probe {
    pub(crate) fn new(message: impl Into<String>, details: Value) -> Self {
        Self {
            verdict: Verdict::Pass,
            message: message.into(),
            details,
        }
    }

    /// Records a failed assertion; the first one wins.
    pub(crate) fn fail(&mut self, reason: impl Into<String>) {
        if !matches!(self.verdict, Verdict::Fail(_)) {
            self.verdict = Verdict::Fail(reason.into());
        }
    }

    pub(crate) fn fail_unless_tested(&mut self, reason: impl Into<String>) {
        if self.verdict == Verdict::Pass {
            self.verdict = Verdict::FailUnlessTested(reason.into());
        }
    }
}
