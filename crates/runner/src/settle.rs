//! Settling on the X server's damage events instead of a quiet period of identical frames.
//!
//! After an input the application paints (or does not). The step is settled when it has
//! painted and then nothing was painted for `quiet_ms`; when nothing at all was painted within
//! `grace_ms` of the input, the input had no visible effect and the step's checks decide, with
//! no quiet period waited out. The step's timeout bounds both (`ACTION_TIMEOUT`, like the
//! fingerprint settle). Settling early never lets the runner act on a half-painted screen
//! unchecked: the next step's locator reads what it sees and waits for its target, and the
//! guard checks the focus on that very frame.
//!
//! Pure over the [`Clock`] and the [`DamageStream`] seams, so every branch runs on a fake
//! clock with a scripted stream (tests below, and `benches/settle.rs`).

use crate::clock::Clock;
use mend_capture::DamageStream;
use mend_model::{ErrorCode, MendError};

/// How damage becomes "settled". Defaults measured on the practice app under Xvfb
/// (BENCHMARKS.md, *Settling on damage events*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleRule {
    /// Nothing painted this long after the input: the input had no visible effect.
    pub grace_ms: u64,
    /// Painted, then nothing for this long: settled.
    pub quiet_ms: u64,
    /// How often the stream is read.
    pub poll_ms: u64,
}

impl Default for SettleRule {
    /// A responsive practice app paints 6–13 ms after a click and is done within ~25 ms
    /// (BENCHMARKS.md): 40 ms of quiet. The grace is as long as the fingerprints' quiet period
    /// on purpose: an application still busy (just started) had not even read a click after
    /// 60 ms, the runner's next click was queued behind it, and the row the first selected
    /// was not selected yet when the second (删除) ran — the crash test caught it. Nothing
    /// painted is never taken for "done" sooner than the old settle would have.
    fn default() -> Self {
        SettleRule {
            grace_ms: 250,
            quiet_ms: 40,
            poll_ms: 5,
        }
    }
}

pub use mend_store::Settled;

/// Wait on `stream` until the screen settles by `rule`. `since` is the clock time the watch
/// began (just before the input); the timeout counts from now, like the fingerprint settle's.
/// `ACTION_TIMEOUT` if it keeps painting; a stream error is returned as it is (the caller
/// falls back to fingerprints).
pub fn on_damage(
    clock: &dyn Clock,
    stream: &mut dyn DamageStream,
    rule: &SettleRule,
    since: u64,
    timeout: u64,
) -> Result<Settled, MendError> {
    let start = clock.now_ms();
    let mut first: Option<u64> = None;
    let mut last: Option<u64> = None;
    loop {
        let n = stream.take()?;
        let now = clock.now_ms();
        if n > 0 {
            first.get_or_insert(now);
            last = Some(now);
        }
        match (first, last) {
            (Some(f), Some(l)) if now - l >= rule.quiet_ms => {
                let ms = |t: u64| t.saturating_sub(since).min(u32::MAX as u64) as u32;
                return Ok(Settled::Painted {
                    first_ms: ms(f),
                    last_ms: ms(l),
                });
            }
            (None, _) if now.saturating_sub(since) >= rule.grace_ms => {
                return Ok(Settled::Unchanged)
            }
            _ => {}
        }
        if now - start >= timeout {
            return Err(MendError::new(
                ErrorCode::ActionTimeout,
                format!("the screen did not settle within {timeout} ms (it kept painting)"),
            ));
        }
        clock.sleep_ms(rule.poll_ms);
    }
}

/// A damage stream scripted in clock time: paints at given times, paints at given offsets
/// after every watch (an application answering each input), a watch that fails, or a stream
/// that breaks at a time. For unit tests and the bench.
pub struct ScriptedDamage<C: Clock> {
    pub clock: C,
    /// Clock times of paints not yet taken, ascending.
    pub paints: Vec<u64>,
    /// Offsets after each watch at which the application paints, ascending.
    pub per_watch: Vec<u64>,
    /// The watch fails (no DAMAGE on this server).
    pub no_watch: bool,
    /// `take` fails from this clock time on (the connection broke).
    pub breaks_at: Option<u64>,
    /// Windows watched, per watch.
    pub watched: Vec<Vec<u32>>,
}

impl<C: Clock> ScriptedDamage<C> {
    pub fn new(clock: C, paints: Vec<u64>) -> Self {
        ScriptedDamage {
            clock,
            paints,
            per_watch: Vec::new(),
            no_watch: false,
            breaks_at: None,
            watched: Vec::new(),
        }
    }
}

impl<C: Clock> DamageStream for ScriptedDamage<C> {
    fn watch(&mut self, windows: &[u32]) -> Result<(), MendError> {
        if self.no_watch {
            return Err(MendError::new(ErrorCode::CaptureFailed, "no DAMAGE"));
        }
        self.watched.push(windows.to_vec());
        // What was painted before the watch is forgotten.
        let now = self.clock.now_ms();
        self.paints.retain(|&t| t > now);
        self.paints.extend(self.per_watch.iter().map(|o| now + o));
        self.paints.sort_unstable();
        Ok(())
    }

    fn take(&mut self) -> Result<u32, MendError> {
        let now = self.clock.now_ms();
        if self.breaks_at.is_some_and(|t| now >= t) {
            return Err(MendError::new(ErrorCode::CaptureFailed, "connection lost"));
        }
        let n = self.paints.iter().take_while(|&&t| t <= now).count();
        self.paints.drain(..n);
        Ok(n as u32)
    }

    /// Every scripted paint is over every area (the script has no places).
    fn painted_over(&mut self, _area: mend_model::Rect) -> Result<bool, MendError> {
        let now = self.clock.now_ms();
        if self.breaks_at.is_some_and(|t| now >= t) {
            return Err(MendError::new(ErrorCode::CaptureFailed, "connection lost"));
        }
        Ok(self.paints.first().is_some_and(|&t| t <= now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FakeClock;

    fn run(paints: &[u64], timeout: u64) -> (Result<Settled, MendError>, u64) {
        let clock = FakeClock::default();
        clock.advance(1000);
        let mut s = ScriptedDamage::new(clock.clone(), paints.iter().map(|p| p + 1000).collect());
        s.watch(&[1]).unwrap();
        let r = on_damage(&clock, &mut s, &SettleRule::default(), 1000, timeout);
        (r, clock.now_ms() - 1000)
    }

    #[test]
    fn a_paint_then_quiet_settles_a_quiet_period_after_the_last_paint() {
        let (r, spent) = run(&[3, 12, 30], 8000);
        assert_eq!(
            r.unwrap(),
            Settled::Painted {
                first_ms: 5,
                last_ms: 30
            }
        );
        assert_eq!(spent, 70, "last paint at 30 ms + 40 ms quiet");
    }

    #[test]
    fn nothing_painted_within_the_grace_is_unchanged_without_a_quiet_period() {
        let (r, spent) = run(&[], 8000);
        assert_eq!(r.unwrap(), Settled::Unchanged);
        assert_eq!(spent, 250, "the grace, not grace + quiet");
    }

    #[test]
    fn a_paint_after_the_grace_is_not_waited_for() {
        // The app painted only after the grace: the runner has gone on (the checks decide).
        let (r, spent) = run(&[400], 8000);
        assert_eq!(r.unwrap(), Settled::Unchanged);
        assert_eq!(spent, 250);
    }

    #[test]
    fn a_paint_just_inside_the_grace_waits_for_quiet() {
        let (r, spent) = run(&[245], 8000);
        assert!(matches!(r.unwrap(), Settled::Painted { .. }));
        assert_eq!(spent, 285);
    }

    #[test]
    fn painting_that_never_stops_times_out() {
        let paints: Vec<u64> = (1..400).map(|i| i * 10).collect();
        let (r, spent) = run(&paints, 1000);
        assert_eq!(r.unwrap_err().code, ErrorCode::ActionTimeout);
        assert_eq!(spent, 1000);
    }

    #[test]
    fn paints_before_the_watch_do_not_count() {
        let clock = FakeClock::default();
        clock.advance(1000);
        let mut s = ScriptedDamage::new(clock.clone(), vec![990, 995, 1000]);
        s.watch(&[1]).unwrap();
        let r = on_damage(&clock, &mut s, &SettleRule::default(), 1000, 8000);
        assert_eq!(r.unwrap(), Settled::Unchanged);
    }

    #[test]
    fn a_broken_stream_is_an_error_for_the_caller_to_fall_back_on() {
        let clock = FakeClock::default();
        let mut s = ScriptedDamage::new(clock.clone(), vec![5]);
        s.breaks_at = Some(10);
        s.watch(&[1]).unwrap();
        let e = on_damage(&clock, &mut s, &SettleRule::default(), 0, 8000).unwrap_err();
        assert_eq!(e.code, ErrorCode::CaptureFailed);
    }
}
