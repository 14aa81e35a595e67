//! The stop-resume cap: [`Call::count_resumes`] before the hook runs,
//! [`Call::cap_resumes`] after it decided.

use hooks_schema::Mode;

use super::call::{Call, Settled};
use crate::shell::records::RecordStatus;
use crate::{Flow, StepEvent};

/// Resume count of the current turn, kept in the run's scratchpad.
#[derive(Debug, Default, Clone, Copy)]
struct StopResumes {
    turn: u32,
    count: u32,
}

impl Call<'_> {
    /// On `stop`, the resumes of this turn so far: the larger of the
    /// event's `loop_count` and the count kept in the scratchpad (reset on
    /// a new turn). Returns the event with that count as its `loop_count`,
    /// and the count (0 on other phases, whose event is unchanged).
    pub(super) fn count_resumes<'e>(&self, event: StepEvent<'e>) -> (StepEvent<'e>, u32) {
        let StepEvent::Stop { loop_count, text } = event else {
            return (event, 0);
        };
        let turn = self.turn;
        let tracked = self.ctx.update::<StopResumes, u32>(|s| {
            if s.turn != turn {
                *s = StopResumes { turn, count: 0 };
            }
            s.count
        });
        let loop_count = loop_count.max(tracked);
        (StepEvent::Stop { loop_count, text }, loop_count)
    }

    /// An enforced `Resume` at the cap
    /// ([`HookLimits::max_stop_resumes`](super::HookLimits::max_stop_resumes))
    /// is refused: the record says so, a diagnostic is kept and the flow
    /// becomes `Continue`. Below the cap the turn's count goes up by one.
    /// Returns `settled`, refused or not.
    pub(super) fn cap_resumes(&mut self, mut settled: Settled, resumes: u32) -> Settled {
        if !matches!(settled.flow, Flow::Resume { .. }) || self.spec.mode != Mode::Enforce {
            return settled;
        }
        let (turn, max) = (self.turn, self.rt.limits.max_stop_resumes);
        if resumes >= max {
            settled.record.status = RecordStatus::Refused;
            settled.record.message = Some(format!(
                "resume refused: the stop-resume cap of {max} per turn is reached"
            ));
            self.diagnostics.push(format!(
                "hook `{}` asked to resume a {}th time in turn {turn}; the cap is {max}: stopping",
                self.spec.id,
                resumes + 1
            ));
            settled.flow = Flow::Continue;
            settled.refused = true;
        } else {
            self.ctx.update::<StopResumes, ()>(|s| {
                if s.turn != turn {
                    *s = StopResumes { turn, count: 0 };
                }
                s.count = s.count.max(resumes) + 1;
            });
        }
        settled
    }
}
