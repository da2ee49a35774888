//! `-exec`, `-execdir`, `-ok` and `-okdir`: the command and its
//! arguments, up to `;`, or up to `{} +` (a batch).

use crate::error::{Error, ErrorKind};
use crate::expr::ExecSpec;
use crate::report::show;

/// The command of `opt` in `toks` (the arguments after it), and how many
/// of them it took.
pub(super) fn spec(opt: &[u8], toks: &[Vec<u8>]) -> Result<(ExecSpec, usize), Error> {
    let missing = || Err(ErrorKind::MissingArgument { option: show(opt) }.into());
    let mut argv = Vec::new();
    let mut pos = 0;
    loop {
        let Some(a) = toks.get(pos) else { return missing() };
        pos += 1;
        if a == b";" {
            break;
        }
        // `-ok ... {} +` does not batch: `+` is an argument there.
        let asks = opt.starts_with(b"-ok");
        if a == b"+" && !asks && argv.last().is_some_and(|l: &Vec<u8>| l == b"{}") {
            argv.pop();
            if argv.is_empty() {
                return missing();
            }
            if argv.iter().any(|x| memchr::memmem::find(x, b"{}").is_some()) {
                return Err(ErrorKind::SecondBracesInBatch { action: show(opt) }.into());
            }
            let spec = ExecSpec { argv, batch: true, in_dir: opt == b"-execdir", ask: false };
            return Ok((spec, pos));
        }
        argv.push(a.clone());
    }
    if argv.is_empty() {
        return missing();
    }
    let in_dir = opt == b"-execdir" || opt == b"-okdir";
    let ask = opt.starts_with(b"-ok");
    Ok((ExecSpec { argv, batch: false, in_dir, ask }, pos))
}
