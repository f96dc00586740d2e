//! The hooks a host registers from a skill's frontmatter (docs/claude-code.md#skill-hooks):
//! a layer per skill after the plugins, in registration order, and the `once` handlers
//! that already ran successfully.

use std::collections::BTreeSet;
use std::sync::Mutex;

use hooks_core::snapshot::{Layer, LayerDocument};
use hooks_core::{ConfigKind, Diagnostic, Profile};

use crate::report::HandlerRun;

/// The session's skill layers and spent `once` handlers.
#[derive(Debug, Default)]
pub(crate) struct Skills {
    state: Mutex<State>,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    /// One document per registered skill, in registration order.
    pub documents: Vec<LayerDocument>,
    /// Fingerprints of the `once` handlers that ran successfully.
    pub spent: BTreeSet<String>,
}

impl Skills {
    /// The documents and spent handlers now.
    pub(crate) fn state(&self) -> State {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers (or replaces) the hooks of `skill`: `hooks` is the frontmatter's `hooks`
    /// object as JSON text, in the settings shape (`{"PreToolUse": [{"matcher": ...,
    /// "hooks": [...]}]}`). Returns the document's diagnostics.
    pub(crate) fn register(&self, skill: &str, hooks: &str, profile: Profile) -> Vec<Diagnostic> {
        let source = format!("skill:{skill}");
        // The document a hooks file would hold: `{"hooks": <the frontmatter's hooks>}`.
        let text = format!("{{\"hooks\":\n{hooks}\n}}");
        let parsed = hooks_core::config::parse_config_for(
            text.as_bytes(),
            &source,
            ConfigKind::Plugin,
            profile,
        );
        let diagnostics = parsed.diagnostics.clone();
        let document =
            LayerDocument::new(Layer::Skill { name: skill.to_owned() }, source.clone(), parsed);
        let mut state = self.lock();
        match state.documents.iter_mut().find(|d| d.source == source) {
            Some(slot) => *slot = document,
            None => state.documents.push(document),
        }
        diagnostics
    }

    /// Removes the hooks of `skill`; true when it was registered.
    pub(crate) fn unregister(&self, skill: &str) -> bool {
        let source = format!("skill:{skill}");
        let mut state = self.lock();
        let before = state.documents.len();
        state.documents.retain(|d| d.source != source);
        state.documents.len() != before
    }

    /// Records the `once` handlers among `ran` (fingerprint and run) that ran
    /// successfully ([`succeeded`]); `diagnostics` are the fire's. True when one was new,
    /// so the snapshot must be rebuilt.
    pub(crate) fn spend<'a>(
        &self,
        ran: impl Iterator<Item = (&'a str, &'a HandlerRun)>,
        diagnostics: &[Diagnostic],
    ) -> bool {
        let mut state = self.lock();
        let mut changed = false;
        for (fingerprint, run) in ran {
            if succeeded(run, diagnostics) {
                changed |= state.spent.insert(fingerprint.to_owned());
            }
        }
        changed
    }
}

/// A successful run for `once` (docs/claude-code.md#skill-hooks): a process that exited 0
/// or 2 (a block is a success), or another type that answered, within the timeout, and
/// no error of the handler in the decision (output outside the protocol is a failure).
fn succeeded(run: &HandlerRun, diagnostics: &[Diagnostic]) -> bool {
    let exit_ok = run.exit_code.is_none_or(|c| c == 0 || c == 2) && run.signal.is_none();
    let failed =
        diagnostics.iter().any(|d| d.is_error() && d.handler_id.as_deref() == Some(&run.id));
    exit_ok && !run.timed_out && run.start_error.is_none() && !failed
}
