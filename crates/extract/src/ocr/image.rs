//! An image's size, read from its headers (never decoding its pixels), so
//! that one too large for OCR is refused before any program decodes it:
//! PNG's IHDR, JPEG's start-of-frame, each TIFF page's directory, GIF's
//! logical screen, BMP's info header, WebP's VP8, VP8L or VP8X chunk.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use crate::kind::ImageFormat;

/// How far into a JPEG its start-of-frame is looked for (Exif and ICC
/// segments come first), and how many TIFF pages are read.
const JPEG_SCAN: u64 = 16 << 20;
const TIFF_PAGES: usize = 100_000;

/// Width and height of each page of the image in `file`: one, except for
/// a TIFF of several pages. An error when its headers cannot be read (a
/// damaged or truncated image).
pub(crate) fn dimensions(file: &File, format: ImageFormat) -> io::Result<Vec<(u64, u64)>> {
    let at = Reader(file);
    let one = |(w, h): (u64, u64)| Ok(vec![(w, h)]);
    match format {
        ImageFormat::Png => one((at.be32(16)?.into(), at.be32(20)?.into())),
        ImageFormat::Gif => one((at.le16(6)?.into(), at.le16(8)?.into())),
        ImageFormat::Bmp => match at.le32(14)? {
            12 => one((at.le16(18)?.into(), at.le16(20)?.into())),
            _ => {
                let w = at.le32(18)? as i32;
                let h = at.le32(22)? as i32;
                one((u64::from(w.unsigned_abs()), u64::from(h.unsigned_abs())))
            }
        },
        ImageFormat::WebP => one(webp(&at)?),
        ImageFormat::Jpeg => one(jpeg(&at)?),
        ImageFormat::Tiff => tiff(&at),
    }
}

/// Reads integers at offsets of a file.
struct Reader<'f>(&'f File);

impl Reader<'_> {
    fn bytes<const N: usize>(&self, at: u64) -> io::Result<[u8; N]> {
        let mut b = [0u8; N];
        self.0.read_exact_at(&mut b, at).map_err(|_| damaged())?;
        Ok(b)
    }
    fn be16(&self, at: u64) -> io::Result<u16> {
        self.bytes(at).map(u16::from_be_bytes)
    }
    fn be32(&self, at: u64) -> io::Result<u32> {
        self.bytes(at).map(u32::from_be_bytes)
    }
    fn le16(&self, at: u64) -> io::Result<u16> {
        self.bytes(at).map(u16::from_le_bytes)
    }
    fn le32(&self, at: u64) -> io::Result<u32> {
        self.bytes(at).map(u32::from_le_bytes)
    }
    fn le24(&self, at: u64) -> io::Result<u32> {
        let b: [u8; 3] = self.bytes(at)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }
}

fn damaged() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "damaged image: its size could not be read")
}

/// The first chunk after `RIFF....WEBP`.
fn webp(at: &Reader<'_>) -> io::Result<(u64, u64)> {
    let chunk: [u8; 4] = at.bytes(12)?;
    match &chunk {
        // Lossy: a key frame's start code, then 14-bit sizes.
        b"VP8 " => Ok((u64::from(at.le16(26)? & 0x3fff), u64::from(at.le16(28)? & 0x3fff))),
        // Lossless: a signature byte, then 14 bits each of size - 1.
        b"VP8L" => {
            let bits = at.le32(21)?;
            Ok((u64::from(bits & 0x3fff) + 1, u64::from((bits >> 14) & 0x3fff) + 1))
        }
        // Extended: 24 bits each of the canvas size - 1.
        b"VP8X" => Ok((u64::from(at.le24(24)?) + 1, u64::from(at.le24(27)?) + 1)),
        _ => Err(damaged()),
    }
}

/// The size in the first start-of-frame segment.
fn jpeg(at: &Reader<'_>) -> io::Result<(u64, u64)> {
    let mut pos = 2u64;
    while pos < JPEG_SCAN {
        let [ff, marker]: [u8; 2] = at.bytes(pos)?;
        if ff != 0xff {
            return Err(damaged());
        }
        match marker {
            // Fill bytes.
            0xff => pos += 1,
            // Markers without a segment.
            0x01 | 0xd0..=0xd9 => pos += 2,
            // Start of frame (not DHT, JPG, DAC): length, precision, height, width.
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                return Ok((at.be16(pos + 7)?.into(), at.be16(pos + 5)?.into()));
            }
            _ => pos += 2 + u64::from(at.be16(pos + 2)?),
        }
    }
    Err(damaged())
}

/// Each page's size, following the chain of image file directories.
fn tiff(at: &Reader<'_>) -> io::Result<Vec<(u64, u64)>> {
    let big_endian = at.bytes::<2>(0)? == *b"MM";
    let u16_at = |p| if big_endian { at.be16(p) } else { at.le16(p) };
    let u32_at = |p| if big_endian { at.be32(p) } else { at.le32(p) };
    let mut pages = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut ifd = u64::from(u32_at(4)?);
    while ifd != 0 && pages.len() < TIFF_PAGES {
        if !seen.insert(ifd) {
            return Err(damaged());
        }
        let entries = u64::from(u16_at(ifd)?);
        let (mut w, mut h) = (None, None);
        for e in 0..entries {
            let entry = ifd + 2 + 12 * e;
            let tag = u16_at(entry)?;
            if tag != 256 && tag != 257 {
                continue;
            }
            // SHORT (3) or LONG (4), one value, held in the entry itself.
            let value = match u16_at(entry + 2)? {
                3 => u64::from(u16_at(entry + 8)?),
                4 => u64::from(u32_at(entry + 8)?),
                _ => return Err(damaged()),
            };
            match tag {
                256 => w = Some(value),
                _ => h = Some(value),
            }
        }
        let (Some(w), Some(h)) = (w, h) else { return Err(damaged()) };
        pages.push((w, h));
        ifd = u64::from(u32_at(ifd + 2 + 12 * entries)?);
    }
    match pages.is_empty() {
        true => Err(damaged()),
        false => Ok(pages),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    fn size(format: ImageFormat, bytes: &[u8]) -> io::Result<Vec<(u64, u64)>> {
        dimensions(&file(bytes), format)
    }

    #[test]
    fn png_gif_bmp_and_webp_sizes_come_from_their_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend_from_slice(&30000u32.to_be_bytes());
        png.extend_from_slice(&20000u32.to_be_bytes());
        assert_eq!(size(ImageFormat::Png, &png).unwrap(), [(30000, 20000)]);
        assert_eq!(size(ImageFormat::Gif, b"GIF89a\x10\x02\x20\x01").unwrap(), [(528, 288)]);
        let mut bmp = b"BM\0\0\0\0\0\0\0\0\x36\0\0\0".to_vec();
        bmp.extend_from_slice(&40u32.to_le_bytes());
        bmp.extend_from_slice(&640i32.to_le_bytes());
        bmp.extend_from_slice(&(-480i32).to_le_bytes());
        assert_eq!(size(ImageFormat::Bmp, &bmp).unwrap(), [(640, 480)], "top-down");
        let mut vp8l = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        vp8l.extend_from_slice(&((99u32) | (49 << 14)).to_le_bytes());
        assert_eq!(size(ImageFormat::WebP, &vp8l).unwrap(), [(100, 50)]);
        let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0".to_vec();
        vp8x.extend_from_slice(&[0x1f, 0x4e, 0x00, 0x0f, 0x27, 0x00]);
        assert_eq!(size(ImageFormat::WebP, &vp8x).unwrap(), [(20000, 10000)]);
        assert!(size(ImageFormat::Png, &png[..18]).is_err(), "truncated");
    }

    #[test]
    fn a_jpeg_size_is_found_past_its_other_segments() {
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe1, 0x00, 0x06, 1, 2, 3, 4];
        jpeg.extend_from_slice(&[0xff, 0xc4, 0x00, 0x04, 0, 0]);
        jpeg.extend_from_slice(&[0xff, 0xc2, 0x00, 0x11, 8, 0x01, 0x2c, 0x02, 0x58]);
        assert_eq!(size(ImageFormat::Jpeg, &jpeg).unwrap(), [(600, 300)]);
        assert!(size(ImageFormat::Jpeg, &jpeg[..12]).is_err());
    }

    /// A TIFF with one directory per (width, height), little- or big-endian.
    fn tiff_of(pages: &[(u32, u16)], big: bool) -> Vec<u8> {
        let u16b = |v: u16| if big { v.to_be_bytes() } else { v.to_le_bytes() };
        let u32b = |v: u32| if big { v.to_be_bytes() } else { v.to_le_bytes() };
        let mut t = if big { b"MM\0*".to_vec() } else { b"II*\0".to_vec() };
        t.extend_from_slice(&u32b(8));
        for (i, &(w, h)) in pages.iter().enumerate() {
            t.extend_from_slice(&u16b(2));
            t.extend_from_slice(&u16b(256));
            t.extend_from_slice(&u16b(4));
            t.extend_from_slice(&u32b(1));
            t.extend_from_slice(&u32b(w));
            t.extend_from_slice(&u16b(257));
            t.extend_from_slice(&u16b(3));
            t.extend_from_slice(&u32b(1));
            t.extend_from_slice(&u16b(h));
            t.extend_from_slice(&[0, 0]);
            let next = if i + 1 < pages.len() { t.len() as u32 + 4 } else { 0 };
            t.extend_from_slice(&u32b(next));
        }
        t
    }

    #[test]
    fn every_page_of_a_tiff_has_its_size() {
        for big in [false, true] {
            let t = tiff_of(&[(1700, 2200), (30000, 30000), (10, 20)], big);
            assert_eq!(
                size(ImageFormat::Tiff, &t).unwrap(),
                [(1700, 2200), (30000, 30000), (10, 20)]
            );
        }
        // A directory pointing back to itself is damaged, not endless.
        let mut looped = tiff_of(&[(5, 5)], false);
        let n = looped.len();
        looped[n - 4..].copy_from_slice(&8u32.to_le_bytes());
        assert!(size(ImageFormat::Tiff, &looped).is_err());
    }
}
