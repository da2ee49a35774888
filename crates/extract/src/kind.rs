//! What a byte stream is, told by its first bytes (never by its name, so a
//! misnamed file is read for what it is).

/// Bytes looked at to tell a stream's kind (a tar header's magic is at
/// offset 257).
pub const HEAD: usize = 512;

/// The kind of a byte stream.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Kind {
    /// Text or any other bytes searched as they are.
    Plain,
    /// A compressed stream, decoded in-process.
    Compressed(Codec),
    /// A tar archive.
    Tar,
    /// A zip archive (also jar, whl, and the office formats' container).
    Zip,
    /// A PDF document.
    Pdf,
    /// A PostScript program (also EPS).
    PostScript,
    /// A TeX DVI file.
    Dvi,
    /// An OLE2 compound file: legacy Office (doc, xls, ppt), also msi, msg.
    Ole,
    /// An image, read through OCR (when it is asked for: see
    /// [`crate::ocr`]). Never told by [`detect`]; [`image`] tells it.
    Image(ImageFormat),
    /// A file a configured extractor reads (by its name and/or first
    /// bytes): the extractor's place in the configuration. Never told by
    /// [`detect`].
    Configured(usize),
}

impl Kind {
    /// The document kinds [`detect`] tells (a tool extracts their text).
    pub const DOCUMENTS: [Kind; 4] = [Kind::Pdf, Kind::PostScript, Kind::Dvi, Kind::Ole];

    /// Whether it is a document whose text a tool extracts.
    pub fn is_document(self) -> bool {
        Kind::DOCUMENTS.contains(&self) || matches!(self, Kind::Configured(_) | Kind::Image(_))
    }
}

/// An image format that Tesseract (through Leptonica) reads.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum ImageFormat {
    /// PNG.
    Png,
    /// JPEG (JFIF, Exif).
    Jpeg,
    /// TIFF, of one or more pages.
    Tiff,
    /// GIF (its first frame).
    Gif,
    /// Windows and OS/2 bitmaps.
    Bmp,
    /// WebP, lossy or lossless.
    WebP,
}

impl ImageFormat {
    /// The format's usual name.
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Png => "PNG",
            ImageFormat::Jpeg => "JPEG",
            ImageFormat::Tiff => "TIFF",
            ImageFormat::Gif => "GIF",
            ImageFormat::Bmp => "BMP",
            ImageFormat::WebP => "WebP",
        }
    }
}

/// Tells an image from its first bytes (up to [`HEAD`] of them): its
/// format's signature (BMP's two letters only with a known header size
/// after them, so that text starting with "BM" is not taken for one).
pub fn image(head: &[u8]) -> Option<ImageFormat> {
    let le32 =
        |at: usize| head.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(ImageFormat::Png)
    } else if head.starts_with(&[0xff, 0xd8, 0xff]) {
        Some(ImageFormat::Jpeg)
    } else if head.starts_with(b"II*\0") || head.starts_with(b"MM\0*") {
        Some(ImageFormat::Tiff)
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some(ImageFormat::Gif)
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        Some(ImageFormat::WebP)
    } else if head.starts_with(b"BM")
        && matches!(le32(14), Some(12 | 40 | 52 | 56 | 64 | 108 | 124))
    {
        Some(ImageFormat::Bmp)
    } else {
        None
    }
}

/// A compression format.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Codec {
    /// gzip, every member of a multi-member file.
    Gzip,
    /// bzip2, every stream of a concatenated file.
    Bzip2,
    /// xz, every stream of a concatenated file.
    Xz,
    /// Zstandard, every frame.
    Zstd,
    /// LZ4 frames.
    Lz4,
}

impl Codec {
    /// The format's usual name.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Bzip2 => "bzip2",
            Codec::Xz => "xz",
            Codec::Zstd => "zstd",
            Codec::Lz4 => "lz4",
        }
    }
}

/// Tells the kind of a stream from its first bytes (up to [`HEAD`] of them;
/// fewer when the stream is shorter).
pub fn detect(head: &[u8]) -> Kind {
    if head.starts_with(&[0x1f, 0x8b]) {
        Kind::Compressed(Codec::Gzip)
    } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
        Kind::Compressed(Codec::Bzip2)
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Kind::Compressed(Codec::Xz)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Kind::Compressed(Codec::Zstd)
    } else if head.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
        Kind::Compressed(Codec::Lz4)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Kind::Zip
    } else if head.starts_with(b"%PDF-") {
        Kind::Pdf
    } else if head.starts_with(b"%!PS") || head.starts_with(&[0xc5, 0xd0, 0xd3, 0xc6]) {
        Kind::PostScript
    } else if head.starts_with(&[0xf7, 0x02, 0x01, 0x83, 0x92, 0xc0]) {
        // TeX's preamble: version 2, numerator 25400000.
        Kind::Dvi
    } else if head.starts_with(&[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]) {
        Kind::Ole
    } else if head.get(257..262) == Some(b"ustar") || is_v7_tar_header(head) {
        Kind::Tar
    } else {
        Kind::Plain
    }
}

/// Whether `head` starts with a pre-POSIX (v7) tar header, which has no
/// magic: a name, octal size and mode fields, and a checksum (offset 148,
/// octal) equal to the sum of the header's bytes with that field counted
/// as spaces, as GNU tar and file(1) check it.
fn is_v7_tar_header(head: &[u8]) -> bool {
    let Some(header) = head.get(..512) else { return false };
    // Spaces, octal digits, then only NULs and spaces.
    let octal = |field: &[u8]| -> Option<u64> {
        let field = &field[field.iter().take_while(|&&b| b == b' ').count()..];
        let n = field.iter().take_while(|b| (b'0'..=b'7').contains(b)).count();
        if n == 0 || field[n..].iter().any(|&b| b != 0 && b != b' ') {
            return None;
        }
        field[..n].iter().try_fold(0u64, |v, &d| v.checked_mul(8)?.checked_add(u64::from(d - b'0')))
    };
    let Some(sum) = octal(&header[148..156]) else { return false };
    let computed: u64 = header
        .iter()
        .enumerate()
        .map(|(i, &b)| if (148..156).contains(&i) { u64::from(b' ') } else { u64::from(b) })
        .sum();
    header[0] != 0
        && sum == computed
        && octal(&header[100..108]).is_some()
        && octal(&header[124..136]).is_some()
        && matches!(header[156], 0 | b'0'..=b'7')
}

#[cfg(test)]
mod tests {
    use super::{detect, Codec, Kind};

    #[test]
    fn kinds_are_told_by_magic_bytes() {
        assert_eq!(detect(b"\x1f\x8b\x08\0"), Kind::Compressed(Codec::Gzip));
        assert_eq!(detect(b"BZh91AY&SY"), Kind::Compressed(Codec::Bzip2));
        assert_eq!(detect(b"BZhx"), Kind::Plain);
        assert_eq!(detect(b"\xfd7zXZ\0\0"), Kind::Compressed(Codec::Xz));
        assert_eq!(detect(b"\x28\xb5\x2f\xfd\x24"), Kind::Compressed(Codec::Zstd));
        assert_eq!(detect(b"\x04\x22\x4d\x18\x64"), Kind::Compressed(Codec::Lz4));
        assert_eq!(detect(b"PK\x03\x04\x14\0"), Kind::Zip);
        let mut tar = vec![0u8; 512];
        tar[257..263].copy_from_slice(b"ustar\0");
        assert_eq!(detect(&tar), Kind::Tar);
        // A v7 header has no magic: its checksum tells.
        let mut v7 = vec![0u8; 512];
        v7[..5].copy_from_slice(b"a.txt");
        v7[100..108].copy_from_slice(b"0000644\0");
        v7[124..136].copy_from_slice(b"00000000005\0");
        v7[156] = b'0';
        let sum: u32 = v7.iter().map(|&b| u32::from(b)).sum::<u32>() + 8 * u32::from(b' ');
        v7[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        assert_eq!(detect(&v7), Kind::Tar);
        v7[0] = b'b';
        assert_eq!(detect(&v7), Kind::Plain, "a wrong checksum");
        assert_eq!(detect(b"%PDF-1.5\n%"), Kind::Pdf);
        assert_eq!(detect(b"%!PS-Adobe-3.0 EPSF-3.0\n"), Kind::PostScript);
        assert_eq!(detect(b"\xc5\xd0\xd3\xc6\x1e\0"), Kind::PostScript);
        assert_eq!(detect(b"%!\n"), Kind::Plain);
        assert_eq!(detect(b"\xf7\x02\x01\x83\x92\xc0\x1c;"), Kind::Dvi);
        assert_eq!(detect(b"\xf7\x02hello"), Kind::Plain);
        assert_eq!(detect(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\0"), Kind::Ole);
        assert_eq!(detect(b"hello\n"), Kind::Plain);
        assert_eq!(detect(b""), Kind::Plain);
    }

    #[test]
    fn images_are_told_by_their_signatures_not_by_detect() {
        use super::{image, ImageFormat};
        assert_eq!(image(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR"), Some(ImageFormat::Png));
        assert_eq!(image(b"\xff\xd8\xff\xe0\0\x10JFIF"), Some(ImageFormat::Jpeg));
        assert_eq!(image(b"II*\0\x08\0\0\0"), Some(ImageFormat::Tiff));
        assert_eq!(image(b"MM\0*\0\0\0\x08"), Some(ImageFormat::Tiff));
        assert_eq!(image(b"GIF89a\x10\0\x10\0"), Some(ImageFormat::Gif));
        assert_eq!(image(b"RIFF\0\0\0\0WEBPVP8L"), Some(ImageFormat::WebP));
        assert_eq!(image(b"RIFF\0\0\0\0WAVEfmt "), None);
        let mut bmp = b"BM\0\0\0\0\0\0\0\0\x36\0\0\0".to_vec();
        bmp.extend_from_slice(&40u32.to_le_bytes());
        assert_eq!(image(&bmp), Some(ImageFormat::Bmp));
        assert_eq!(image(b"BMW drivers: a list of 40 cars\n"), None);
        assert_eq!(detect(b"\x89PNG\r\n\x1a\n"), Kind::Plain, "images are bytes without OCR");
    }
}
