//! The circuit breaker: per scope (the application a flow drives), by the step's risk class.
//! Pure state machine over an injected time (`now_ms`); the runner keeps it in sled, so a
//! restart never closes an open breaker.
//!
//! - `read`: opens at 50 % failures over the last 10 attempts (at least 5 attempts);
//! - `write`: at 30 % over the last 10 (at least 3), or 3 consecutive failures;
//! - `irreversible`: after 2 consecutive failures, and stays open until a person closes it.
//!
//! Open → after the cool-down (not for irreversible) → half-open, which lets `probes` attempts
//! through: all succeed → closed; one fails → open again. A person resolving a takeover puts
//! it half-open too. Slow steps count as failures (slow: the application kept a passing step
//! waiting longer than its timeout; Mend's own reading time does not count); assertion
//! failures do not count.

use mend_model::{ErrorCode, MendError, Risk};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum State {
    Closed,
    Open {
        since_ms: u64,
        /// The risk class whose threshold opened it.
        by: Risk,
        reason: String,
    },
    HalfOpen {
        probes_left: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Failed,
    /// Passed, but slower than the policy allows: counts as a failure.
    Slow,
    /// The screen did not show what the flow asserts: stops the run, does not trip the breaker.
    AssertionFailed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    pub window: usize,
    pub read_min: usize,
    pub read_ratio: f64,
    pub write_min: usize,
    pub write_ratio: f64,
    pub write_consecutive: usize,
    pub irreversible_consecutive: usize,
    pub cool_down_ms: u64,
    pub probes: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            window: 10,
            read_min: 5,
            read_ratio: 0.5,
            write_min: 3,
            write_ratio: 0.3,
            write_consecutive: 3,
            irreversible_consecutive: 2,
            cool_down_ms: 60_000,
            probes: 2,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breaker {
    pub scope: String,
    pub state: State,
    /// Recent outcomes per risk class, oldest first (`true` = failure).
    pub read: VecDeque<bool>,
    pub write: VecDeque<bool>,
    pub irreversible: VecDeque<bool>,
    pub policy: Policy,
}

impl Breaker {
    pub fn new(scope: &str) -> Self {
        Breaker {
            scope: scope.into(),
            state: State::Closed,
            read: VecDeque::new(),
            write: VecDeque::new(),
            irreversible: VecDeque::new(),
            policy: Policy::default(),
        }
    }

    fn history(&mut self, risk: Risk) -> &mut VecDeque<bool> {
        match risk {
            Risk::Read => &mut self.read,
            Risk::Write => &mut self.write,
            Risk::Irreversible => &mut self.irreversible,
        }
    }

    /// May a step run now? Moves open → half-open when the cool-down has passed (never for
    /// a breaker an irreversible step opened).
    pub fn allow(&mut self, now_ms: u64) -> Result<(), MendError> {
        if let State::Open { since_ms, by, .. } = &self.state {
            if *by != Risk::Irreversible
                && now_ms.saturating_sub(*since_ms) >= self.policy.cool_down_ms
            {
                self.state = State::HalfOpen {
                    probes_left: self.policy.probes,
                };
            }
        }
        match &self.state {
            State::Closed => Ok(()),
            State::HalfOpen { probes_left } if *probes_left > 0 => Ok(()),
            State::HalfOpen { .. } => Err(MendError::new(
                ErrorCode::BreakerOpen,
                format!(
                    "the breaker for '{}' is half-open and its probes are in flight",
                    self.scope
                ),
            )),
            State::Open { reason, by, .. } => Err(MendError::new(
                ErrorCode::BreakerOpen,
                format!(
                    "the breaker for '{}' is open ({reason}); {}",
                    self.scope,
                    if *by == Risk::Irreversible {
                        "it stays open until a person resolves the takeover"
                    } else {
                        "a person can resolve the takeover, or it half-opens after its cool-down"
                    }
                ),
            )),
        }
    }

    /// Count one step's outcome. Returns true when this outcome opened the breaker.
    pub fn record(&mut self, risk: Risk, outcome: Outcome, now_ms: u64) -> bool {
        let failed = match outcome {
            Outcome::AssertionFailed => return false,
            Outcome::Passed => false,
            Outcome::Failed | Outcome::Slow => true,
        };
        if let State::HalfOpen { probes_left } = self.state {
            if failed {
                self.state = State::Open {
                    since_ms: now_ms,
                    by: risk,
                    reason: "a probe failed while half-open".into(),
                };
                return true;
            }
            let left = probes_left.saturating_sub(1);
            self.state = if left == 0 {
                self.read.clear();
                self.write.clear();
                self.irreversible.clear();
                State::Closed
            } else {
                State::HalfOpen { probes_left: left }
            };
            return false;
        }
        if matches!(self.state, State::Open { .. }) {
            return false;
        }
        let window = self.policy.window;
        let h = self.history(risk);
        h.push_back(failed);
        while h.len() > window {
            h.pop_front();
        }
        let n = h.len();
        let fails = h.iter().filter(|f| **f).count();
        let consecutive = h.iter().rev().take_while(|f| **f).count();
        let p = &self.policy;
        let reason = match risk {
            Risk::Read if n >= p.read_min && fails as f64 >= p.read_ratio * n as f64 => {
                Some(format!("{fails} of the last {n} read steps failed"))
            }
            Risk::Write if consecutive >= p.write_consecutive => {
                Some(format!("{consecutive} write steps failed in a row"))
            }
            Risk::Write if n >= p.write_min && fails as f64 >= p.write_ratio * n as f64 => {
                Some(format!("{fails} of the last {n} write steps failed"))
            }
            Risk::Irreversible if consecutive >= p.irreversible_consecutive => {
                Some(format!("{consecutive} irreversible steps failed in a row"))
            }
            _ => None,
        };
        match reason {
            Some(reason) => {
                self.state = State::Open {
                    since_ms: now_ms,
                    by: risk,
                    reason,
                };
                true
            }
            None => false,
        }
    }

    /// A person resolved the takeover: let probes through.
    pub fn half_open(&mut self) {
        self.state = State::HalfOpen {
            probes_left: self.policy.probes,
        };
    }

    pub fn is_open(&self) -> bool {
        matches!(self.state, State::Open { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail_n(b: &mut Breaker, risk: Risk, n: usize, now: u64) -> Vec<bool> {
        (0..n)
            .map(|_| b.record(risk, Outcome::Failed, now))
            .collect()
    }

    #[test]
    fn read_opens_at_half_failures_over_at_least_five() {
        let mut b = Breaker::new("app");
        // 4 failures alone are under the minimum count.
        assert_eq!(fail_n(&mut b, Risk::Read, 4, 0), vec![false; 4]);
        assert!(b.allow(0).is_ok());
        // The 5th attempt, a failure: 5/5 ≥ 50 %.
        assert!(b.record(Risk::Read, Outcome::Failed, 0));
        assert_eq!(b.allow(0).unwrap_err().code, ErrorCode::BreakerOpen);

        let mut b = Breaker::new("app");
        for o in [
            Outcome::Passed,
            Outcome::Passed,
            Outcome::Passed,
            Outcome::Failed,
        ] {
            assert!(!b.record(Risk::Read, o, 0));
        }
        // 4 passed + 4 failed = 8 attempts, 50 %: opens exactly on the 8th.
        assert!(!b.record(Risk::Read, Outcome::Passed, 0));
        assert!(!b.record(Risk::Read, Outcome::Failed, 0));
        assert!(!b.record(Risk::Read, Outcome::Failed, 0));
        assert!(b.record(Risk::Read, Outcome::Failed, 0));
    }

    #[test]
    fn write_opens_on_three_in_a_row_or_thirty_percent() {
        let mut b = Breaker::new("app");
        assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        assert!(!b.record(Risk::Write, Outcome::Failed, 0)); // 1/6
        assert!(!b.record(Risk::Write, Outcome::Failed, 0)); // 2/7 = 28 %
        assert!(b.record(Risk::Write, Outcome::Failed, 0)); // 3/8, and 3 in a row

        let mut b = Breaker::new("app");
        for _ in 0..7 {
            assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        }
        assert!(!b.record(Risk::Write, Outcome::Failed, 0)); // 1/8
        assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        assert!(!b.record(Risk::Write, Outcome::Failed, 0)); // 2/10
                                                             // The window slides (the oldest pass drops out): 3/10 = 30 %, and slow counts.
        assert!(b.record(Risk::Write, Outcome::Slow, 0));
    }

    #[test]
    fn write_thirty_percent_over_the_window() {
        let mut b = Breaker::new("app");
        // The ratio is checked on every attempt once there are 3: F, P are under the minimum.
        assert!(!b.record(Risk::Write, Outcome::Failed, 0));
        assert!(!b.record(Risk::Write, Outcome::Passed, 0));
        // 1 failure in 3 attempts = 33 % ≥ 30 %: the third attempt opens it, though it passed.
        assert!(b.record(Risk::Write, Outcome::Passed, 0));
        assert!(b.is_open());
    }

    #[test]
    fn irreversible_opens_after_two_in_a_row_and_never_half_opens_by_itself() {
        let mut b = Breaker::new("app");
        assert!(!b.record(Risk::Irreversible, Outcome::Failed, 0));
        assert!(!b.record(Risk::Irreversible, Outcome::Passed, 0));
        assert!(!b.record(Risk::Irreversible, Outcome::Failed, 0));
        assert!(b.record(Risk::Irreversible, Outcome::Failed, 0));
        assert!(
            b.allow(10_000_000).is_err(),
            "no cool-down for irreversible"
        );
        b.half_open();
        assert!(b.allow(10_000_000).is_ok());
    }

    #[test]
    fn cool_down_then_exact_probes_then_closed() {
        let mut b = Breaker::new("app");
        fail_n(&mut b, Risk::Write, 3, 1000);
        assert!(b.is_open());
        assert!(b.allow(1000 + 59_999).is_err(), "still cooling down");
        assert!(b.allow(1000 + 60_000).is_ok());
        assert_eq!(b.state, State::HalfOpen { probes_left: 2 });
        assert!(!b.record(Risk::Write, Outcome::Passed, 61_000));
        assert_eq!(b.state, State::HalfOpen { probes_left: 1 });
        assert!(b.allow(61_000).is_ok());
        assert!(!b.record(Risk::Write, Outcome::Passed, 61_001));
        assert_eq!(b.state, State::Closed);
        assert!(b.write.is_empty(), "closing forgets the old failures");
    }

    #[test]
    fn a_failed_probe_opens_again() {
        let mut b = Breaker::new("app");
        fail_n(&mut b, Risk::Read, 5, 0);
        b.half_open();
        assert!(b.record(Risk::Read, Outcome::Failed, 5));
        assert!(matches!(b.state, State::Open { since_ms: 5, .. }));
    }

    #[test]
    fn slow_counts_and_assertions_do_not() {
        let mut b = Breaker::new("app");
        for _ in 0..10 {
            assert!(!b.record(Risk::Irreversible, Outcome::AssertionFailed, 0));
        }
        assert!(!b.is_open());
        assert!(!b.record(Risk::Irreversible, Outcome::Slow, 0));
        assert!(b.record(Risk::Irreversible, Outcome::Slow, 0));
    }

    #[test]
    fn state_round_trips_through_json() {
        let mut b = Breaker::new("客户管理系统");
        fail_n(&mut b, Risk::Write, 3, 42);
        let back: Breaker = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(back, b);
    }
}
