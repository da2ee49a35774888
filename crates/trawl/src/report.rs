//! The binary's messages on standard error (`trawl: ` lines, written by
//! trawl-diag) and its exit statuses, named.

use std::process::ExitCode;

/// The `trawl: ` lines themselves are written by trawl-diag, for every
/// crate.
pub use trawl_diag::{error, say, warning};

/// How a search ends, as GNU grep's exit status says it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Status {
    /// 0: a line was selected.
    Selected,
    /// 1: none was.
    NoneSelected,
    /// 2: an error (a mistake on the command line, a file that could not
    /// be read; with a line selected too, unless -q).
    Error,
}

impl Status {
    /// grep's rule: an error is 2 even with a line selected, except under
    /// -q, where a selected line is the answer.
    pub fn of(selected: bool, error: bool, quiet: Quiet) -> Status {
        match (selected, error, quiet) {
            (true, _, Quiet::Yes) | (true, false, _) => Status::Selected,
            (_, true, _) => Status::Error,
            (false, false, _) => Status::NoneSelected,
        }
    }
}

/// Whether the search was asked to print nothing (`-q`).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Quiet {
    Yes,
    No,
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(match s {
            Status::Selected => 0,
            Status::NoneSelected => 1,
            Status::Error => 2,
        })
    }
}

/// How a mode other than a search ends (`trawl find`, as GNU find; `trawl
/// index`, `cache`, `extractors`).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Ended {
    /// 0: all went well.
    Ok,
    /// What failed: 1 for find (GNU find's), 2 for the others.
    Failed(FailedWith),
}

/// The status a mode fails with.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum FailedWith {
    /// 1, GNU find's.
    Find,
    /// 2, grep's and trawl's other modes'.
    Error,
}

impl From<Ended> for ExitCode {
    fn from(d: Ended) -> ExitCode {
        match d {
            Ended::Ok => ExitCode::SUCCESS,
            Ended::Failed(FailedWith::Find) => ExitCode::from(1),
            Ended::Failed(FailedWith::Error) => ExitCode::from(2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_is_grep_s() {
        assert_eq!(Status::of(true, false, Quiet::No), Status::Selected);
        assert_eq!(Status::of(true, true, Quiet::No), Status::Error);
        assert_eq!(Status::of(true, true, Quiet::Yes), Status::Selected);
        assert_eq!(Status::of(false, true, Quiet::Yes), Status::Error);
        assert_eq!(Status::of(false, false, Quiet::No), Status::NoneSelected);
    }
}
