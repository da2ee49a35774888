//! One run of a parsed [`FindCommand`]: what its evaluating threads share
//! while they walk. The command stays as it was parsed; a run is made from
//! it (as many times as one likes) and holds the rest: the starting points
//! (read from `-files0-from`'s file), the opened files of `-fprint` & co.,
//! the interrupt, the extractor, the batches of `-exec … {} +` and their
//! children, the widths of `-ls`'s columns and the turns the threads take.

use std::sync::Arc;

use trawl_extract::Extractor;
use trawl_search::Cancel;

use crate::batch::SharedBatch;
use crate::command::FindCommand;
use crate::error::Error;
use crate::ls::LsWidths;
use crate::setup::OutFile;
use crate::turns::Turns;

/// What a run takes from its caller, beside the command.
#[derive(Debug, Default)]
pub struct RunSettings {
    /// Set when the run is interrupted: no more commands are started.
    pub cancel: Cancel,
    /// `-print` escapes control characters (standard output is a terminal).
    pub escape_names: bool,
}

/// What the threads of one run of a [`FindCommand`] share.
#[derive(Debug)]
pub struct Run<'c> {
    /// The command run.
    pub(crate) cmd: &'c FindCommand,
    /// The starting points.
    roots: Vec<Vec<u8>>,
    /// Errors met reading them from `-files0-from`'s file.
    root_errors: Vec<Error>,
    /// The files of `-fprint` & co., by number.
    pub(crate) outputs: Vec<Arc<OutFile>>,
    /// Set when the run is interrupted.
    pub(crate) cancel: Cancel,
    /// `-print` escapes control characters.
    pub(crate) escape_names: bool,
    /// What `-contains`, `-text` and `-binary` look inside.
    pub(crate) extractor: Option<Extractor>,
    /// What the evaluating threads agree on (`-quit`, split output).
    pub(crate) turns: Turns,
    /// The widths of `-ls`'s columns so far.
    pub(crate) ls_widths: LsWidths,
    /// For each of the command's `-exec`s: the batch all threads fill
    /// (used by `-exec … {} +` only).
    pub(crate) batches: Vec<SharedBatch>,
}

impl<'c> Run<'c> {
    /// A run of `cmd`: does its [`crate::Setup`] (an output file that
    /// cannot be opened is the error) and reads its starting points from
    /// `-files0-from`'s file (one that cannot be read is the error; what
    /// is wrong inside it is in [`Run::root_errors`]).
    pub fn new(cmd: &'c FindCommand, settings: RunSettings) -> Result<Run<'c>, Error> {
        let outputs = crate::setup::perform(&cmd.setup)?;
        let (roots, root_errors) = match &cmd.files0_from {
            Some(file) => crate::files0::read(file, cmd.asks())?,
            None => (cmd.paths.clone(), Vec::new()),
        };
        Ok(Run {
            cmd,
            roots,
            root_errors,
            outputs,
            cancel: settings.cancel,
            escape_names: settings.escape_names,
            extractor: None,
            turns: Turns::default(),
            ls_widths: LsWidths::default(),
            batches: cmd.execs.iter().map(|_| SharedBatch::default()).collect(),
        })
    }

    /// The run with `extractor` for the command's [`crate::Extraction`]
    /// (without one, the content tests read the bytes of each file).
    pub fn with_extractor(self, extractor: Extractor) -> Run<'c> {
        Run { extractor: Some(extractor), ..self }
    }

    /// The command this runs.
    pub fn command(&self) -> &'c FindCommand {
        self.cmd
    }

    /// The starting points, in order.
    pub fn roots(&self) -> &[Vec<u8>] {
        &self.roots
    }

    /// What was wrong in `-files0-from`'s file (an empty name, a read
    /// error): to be reported before the walk, which goes on with the
    /// other starting points, and the run fails.
    pub fn root_errors(&self) -> &[Error] {
        &self.root_errors
    }

    /// The run's interrupt (for an extractor made for it).
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// Whether the run was interrupted.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// After the walk: runs what every `-exec … {} +` still holds and
    /// waits for all their children; returns false if a command failed.
    pub fn finish_execs(&self) -> bool {
        let mut ok = true;
        for (spec, batch) in self.cmd.execs.iter().zip(&self.batches) {
            if spec.batch && !spec.in_dir {
                ok &= batch.finish(spec, &self.cancel);
            }
        }
        ok
    }
}
