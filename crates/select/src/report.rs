//! Messages on standard error while a run evaluates: `trawl: …` lines,
//! and whether one of them failed the run.

/// A name or argument as text for a message.
pub(crate) fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Says something on standard error without failing the run.
pub(crate) fn warn(msg: String) {
    trawl_diag::error(msg);
}

/// One thread's reports: each is said at once; any makes find exit 1.
#[derive(Debug, Default)]
pub(crate) struct Reporter {
    /// Something failed.
    pub(crate) failed: bool,
}

impl Reporter {
    /// Says `msg` and fails the run.
    pub(crate) fn report(&mut self, msg: String) {
        self.failed = true;
        warn(msg);
    }
}
