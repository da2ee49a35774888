//! Decoders for compressed streams, all streaming: what they read and what
//! they give is held in small buffers, never a whole member.

use std::io::{self, Read};

use crate::guard::{BombLimits, Counted, Guard};
use crate::kind::Codec;

/// The decoded stream of `input`, ended with an error if it grows past
/// `bombs`.
pub(crate) fn guarded<'r>(
    codec: Codec,
    input: impl Read + 'r,
    bombs: BombLimits,
) -> io::Result<impl Read + 'r> {
    let (input, count) = Counted::new(input);
    Ok(Guard::new(decoder(codec, input)?, count, bombs))
}

/// A reader of the decoded bytes of `input`, compressed with `codec`;
/// concatenated members, streams or frames are all decoded.
fn decoder<'r>(codec: Codec, input: impl Read + 'r) -> io::Result<Box<dyn Read + 'r>> {
    Ok(match codec {
        Codec::Gzip => Box::new(flate2::read::MultiGzDecoder::new(input)),
        Codec::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(input)),
        Codec::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(input)),
        Codec::Zstd => Box::new(zstd::stream::read::Decoder::new(input)?),
        Codec::Lz4 => Box::new(lz4_flex::frame::FrameDecoder::new(input)),
    })
}
