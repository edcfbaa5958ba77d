//! Text files as the editor sees them: bytes ⇄ text in the file's own encoding, without loss.
//!
//! A file is decoded once, into a [`Document`]: its [`Format`] (encoding and byte-order mark)
//! and its text with the original line endings. Encodings, in the order they are tried:
//!
//! 1. a byte-order mark: UTF-8, UTF-16LE or UTF-16BE (kept when the file is written back);
//! 2. a NUL byte anywhere (without a UTF-16 BOM) means binary;
//! 3. valid UTF-8;
//! 4. otherwise `chardetng` guesses a legacy encoding (Shift_JIS, EUC-JP, windows-1252 for
//!    Latin-1, ...). The file is only accepted if it decodes without error and encodes back to
//!    the very same bytes, so an edit never changes a byte it did not mean to.
//!
//! Text with many control characters is binary too. Line endings are not touched here; see
//! [`crate::lines`].

use encoding_rs::{DecoderResult, Encoding};

/// How many bytes [`sniff`] looks at when it only has the start of a file.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// How many bytes of a file `chardetng` reads to guess its encoding.
const DETECT_BYTES: usize = 1024 * 1024;

/// The byte-order mark of UTF-8.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A text encoding the editor reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8, with or without a byte-order mark.
    Utf8,
    /// UTF-16, little-endian (always with its byte-order mark).
    Utf16Le,
    /// UTF-16, big-endian (always with its byte-order mark).
    Utf16Be,
    /// A legacy encoding of the WHATWG Encoding Standard (Shift_JIS, EUC-JP, windows-1252, ...).
    Legacy(&'static Encoding),
}

impl TextEncoding {
    /// The encoding's name, e.g. `UTF-8` or `Shift_JIS`.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Legacy(encoding) => encoding.name(),
        }
    }
}

/// How a file's text is stored: its encoding and whether it starts with a byte-order mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// The encoding.
    pub encoding: TextEncoding,
    /// Whether the file starts with a byte-order mark (always true for UTF-16).
    pub bom: bool,
}

impl Format {
    /// UTF-8 without a byte-order mark: what new files are written in.
    pub const UTF8: Format = Format { encoding: TextEncoding::Utf8, bom: false };

    /// The length in bytes of the byte-order mark.
    pub fn bom_len(self) -> usize {
        match (self.bom, self.encoding) {
            (false, _) => 0,
            (true, TextEncoding::Utf8) => 3,
            (true, _) => 2,
        }
    }

    /// A streaming decoder for the bytes after the byte-order mark.
    pub fn new_decoder(self) -> encoding_rs::Decoder {
        let encoding = match self.encoding {
            TextEncoding::Utf8 => encoding_rs::UTF_8,
            TextEncoding::Utf16Le => encoding_rs::UTF_16LE,
            TextEncoding::Utf16Be => encoding_rs::UTF_16BE,
            TextEncoding::Legacy(encoding) => encoding,
        };
        encoding.new_decoder_without_bom_handling()
    }
}

/// Why bytes are not text the editor can work on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotText {
    /// NUL bytes, undecodable bytes, or mostly control characters.
    #[error("binary content")]
    Binary,
    /// A legacy encoding that would not give back the same bytes (the file could not be edited
    /// without changing bytes the edit did not touch).
    #[error("not losslessly decodable as {0}")]
    NotRoundTrip(&'static str),
}

/// Text that cannot be written in the file's encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the character {character:?} cannot be written in {encoding}")]
pub struct Unencodable {
    /// The first character that has no representation.
    pub character: char,
    /// The encoding's name.
    pub encoding: &'static str,
}

/// A decoded text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// How the file is stored.
    pub format: Format,
    /// The text, without the byte-order mark, with its original line endings.
    pub text: String,
}

/// Guesses the format of a file from `sample`, its first bytes (`complete`: the whole file).
pub fn sniff(sample: &[u8], complete: bool) -> Result<Format, NotText> {
    if sample.starts_with(UTF8_BOM) {
        return Ok(Format { encoding: TextEncoding::Utf8, bom: true });
    }
    if sample.starts_with(b"\xFF\xFE") {
        return Ok(Format { encoding: TextEncoding::Utf16Le, bom: true });
    }
    if sample.starts_with(b"\xFE\xFF") {
        return Ok(Format { encoding: TextEncoding::Utf16Be, bom: true });
    }
    if memchr::memchr(0, sample).is_some() {
        return Err(NotText::Binary);
    }
    match std::str::from_utf8(sample) {
        Ok(_) => return Ok(Format::UTF8),
        // A sequence cut by the end of an incomplete sample is still UTF-8.
        Err(e) if !complete && e.error_len().is_none() => return Ok(Format::UTF8),
        Err(_) => {}
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    let sample = &sample[..sample.len().min(DETECT_BYTES)];
    detector.feed(sample, complete && sample.len() < DETECT_BYTES);
    let encoding = detector.guess(None, chardetng::Utf8Detection::Deny);
    if encoding == encoding_rs::UTF_8 || encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
        return Err(NotText::Binary);
    }
    Ok(Format { encoding: TextEncoding::Legacy(encoding), bom: false })
}

/// Decodes a whole file.
pub fn decode(bytes: Vec<u8>) -> Result<Document, NotText> {
    // The common case first, validating UTF-8 once: no BOM, no NUL, valid UTF-8.
    let bytes = if !bytes.starts_with(UTF8_BOM)
        && !bytes.starts_with(b"\xFF\xFE")
        && !bytes.starts_with(b"\xFE\xFF")
        && memchr::memchr(0, &bytes).is_none()
    {
        match String::from_utf8(bytes) {
            Ok(text) => return check_text(Document { format: Format::UTF8, text }),
            Err(e) => e.into_bytes(),
        }
    } else {
        bytes
    };
    decode_other(bytes)
}

/// [`decode`] for everything but BOM-less UTF-8.
fn decode_other(mut bytes: Vec<u8>) -> Result<Document, NotText> {
    let format = sniff(&bytes, true)?;
    let body_start = format.bom_len();
    let text = match format.encoding {
        TextEncoding::Utf8 => {
            if body_start > 0 {
                bytes.drain(..body_start);
            }
            String::from_utf8(bytes).map_err(|_| NotText::Binary)?
        }
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
            let body = &bytes[body_start..];
            if !body.len().is_multiple_of(2) {
                return Err(NotText::Binary);
            }
            let little = format.encoding == TextEncoding::Utf16Le;
            let units = body.chunks_exact(2).map(|pair| {
                let pair = [pair[0], pair[1]];
                if little { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) }
            });
            char::decode_utf16(units).collect::<Result<String, _>>().map_err(|_| NotText::Binary)?
        }
        TextEncoding::Legacy(encoding) => {
            let text = encoding
                .decode_without_bom_handling_and_without_replacement(&bytes)
                .ok_or(NotText::Binary)?
                .into_owned();
            let document = Document { format, text };
            match document.encode() {
                Ok(back) if back == bytes => {}
                _ => return Err(NotText::NotRoundTrip(encoding.name())),
            }
            return check_text(document);
        }
    };
    check_text(Document { format, text })
}

/// Refuses text that is mostly control characters (or has a NUL, e.g. from UTF-16).
fn check_text(document: Document) -> Result<Document, NotText> {
    if looks_binary(&document.text) { Err(NotText::Binary) } else { Ok(document) }
}

/// Whether decoded text looks like binary data: a NUL, or more than 5% control characters in
/// its first 64 KiB (tabs, line breaks, form feeds and escapes are text).
pub fn looks_binary(text: &str) -> bool {
    let mut total = 0usize;
    let mut control = 0usize;
    for c in text.chars().take(SNIFF_BYTES) {
        total += 1;
        if c == '\0' {
            return true;
        }
        if is_binary_control(c) {
            control += 1;
        }
    }
    control > 0 && control * 20 > total
}

/// A control character that text files do not usually contain.
pub fn is_binary_control(c: char) -> bool {
    (c < ' ' && !matches!(c, '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '\x1b')) || c == '\x7f'
}

impl Document {
    /// The bytes of this document, in its own format.
    pub fn encode(&self) -> Result<Vec<u8>, Unencodable> {
        encode_text(self.format, &self.text)
    }
}

/// `text` in `format` (byte-order mark included).
pub fn encode_text(format: Format, text: &str) -> Result<Vec<u8>, Unencodable> {
    match format.encoding {
        TextEncoding::Utf8 => {
            let mut out = Vec::with_capacity(text.len() + format.bom_len());
            if format.bom {
                out.extend_from_slice(UTF8_BOM);
            }
            out.extend_from_slice(text.as_bytes());
            Ok(out)
        }
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
            let little = format.encoding == TextEncoding::Utf16Le;
            let mut out = Vec::with_capacity(text.len() * 2 + 2);
            let mut push = |unit: u16| {
                let bytes = if little { unit.to_le_bytes() } else { unit.to_be_bytes() };
                out.extend_from_slice(&bytes);
            };
            push(0xFEFF);
            for unit in text.encode_utf16() {
                push(unit);
            }
            Ok(out)
        }
        TextEncoding::Legacy(encoding) => {
            let mut encoder = encoding.new_encoder();
            let capacity =
                encoder.max_buffer_length_from_utf8_without_replacement(text.len()).unwrap_or(text.len() * 4);
            let mut out = Vec::with_capacity(capacity);
            let (result, read) = encoder.encode_from_utf8_to_vec_without_replacement(text, &mut out, true);
            match result {
                encoding_rs::EncoderResult::InputEmpty => Ok(out),
                encoding_rs::EncoderResult::Unmappable(character) => {
                    Err(Unencodable { character, encoding: encoding.name() })
                }
                encoding_rs::EncoderResult::OutputFull => {
                    // The buffer was sized for the worst case; finish the rest in a second pass.
                    let rest = &text[read..];
                    let mut encoder = encoding.new_encoder();
                    let extra =
                        encoder.max_buffer_length_from_utf8_without_replacement(rest.len()).unwrap_or(rest.len() * 4);
                    out.reserve(extra);
                    match encoder.encode_from_utf8_to_vec_without_replacement(rest, &mut out, true).0 {
                        encoding_rs::EncoderResult::InputEmpty => Ok(out),
                        encoding_rs::EncoderResult::Unmappable(character) => {
                            Err(Unencodable { character, encoding: encoding.name() })
                        }
                        encoding_rs::EncoderResult::OutputFull => {
                            Err(Unencodable { character: '\u{FFFD}', encoding: encoding.name() })
                        }
                    }
                }
            }
        }
    }
}

/// Checks that `text` can be written in `format`; the first character that cannot, if any.
pub fn check_encodable(format: Format, text: &str) -> Result<(), Unencodable> {
    match format.encoding {
        TextEncoding::Utf8 | TextEncoding::Utf16Le | TextEncoding::Utf16Be => Ok(()),
        TextEncoding::Legacy(_) => encode_text(format, text).map(|_| ()),
    }
}

/// A streaming decoder of a file's bytes into text pieces, for viewing files of any size.
#[derive(Debug)]
pub struct StreamDecoder {
    format: Format,
    decoder: encoding_rs::Decoder,
    /// Bytes of the byte-order mark still to skip.
    skip: usize,
}

impl StreamDecoder {
    /// A decoder for a file of `format`.
    pub fn new(format: Format) -> StreamDecoder {
        StreamDecoder { format, decoder: format.new_decoder(), skip: format.bom_len() }
    }

    /// The format decoded.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Decodes `bytes` (the next chunk; `last`: the end of the file) into `out` (cleared first).
    /// Undecodable bytes are an error; whether the text looks binary is for the caller to judge
    /// (on the first chunk: a range of a huge file is only read as far as it needs).
    pub fn decode(&mut self, mut bytes: &[u8], last: bool, out: &mut String) -> Result<(), NotText> {
        out.clear();
        if self.skip > 0 {
            let n = self.skip.min(bytes.len());
            bytes = &bytes[n..];
            self.skip -= n;
        }
        let needed = self.decoder.max_utf8_buffer_length_without_replacement(bytes.len()).unwrap_or(bytes.len() * 3);
        out.reserve(needed);
        let (result, _read) = self.decoder.decode_to_string_without_replacement(bytes, out, last);
        match result {
            DecoderResult::InputEmpty => {}
            DecoderResult::Malformed(_, _) | DecoderResult::OutputFull => return Err(NotText::Binary),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shift_jis(text: &str) -> Vec<u8> {
        encoding_rs::SHIFT_JIS.encode(text).0.into_owned()
    }

    #[test]
    fn utf8_with_and_without_bom_round_trips() {
        for bytes in [b"hello\n".to_vec(), b"\xEF\xBB\xBFhello\n".to_vec(), "héllo wörld\n".as_bytes().to_vec()] {
            let doc = decode(bytes.clone()).unwrap();
            assert_eq!(doc.format.encoding, TextEncoding::Utf8);
            assert_eq!(doc.encode().unwrap(), bytes);
        }
        let doc = decode(b"\xEF\xBB\xBFab".to_vec()).unwrap();
        assert!(doc.format.bom);
        assert_eq!(doc.text, "ab");
    }

    #[test]
    fn utf16_with_bom_round_trips() {
        let text = "日本語 text\r\nline 2\n";
        for little in [true, false] {
            let format =
                Format { encoding: if little { TextEncoding::Utf16Le } else { TextEncoding::Utf16Be }, bom: true };
            let bytes = encode_text(format, text).unwrap();
            let doc = decode(bytes.clone()).unwrap();
            assert_eq!(doc.format, format);
            assert_eq!(doc.text, text);
            assert_eq!(doc.encode().unwrap(), bytes);
        }
    }

    #[test]
    fn legacy_encodings_are_detected_and_round_trip() {
        let japanese = "これは日本語のテキストです。エンコーディングの検出を確認します。\n二行目です。\n";
        let bytes = shift_jis(japanese);
        let doc = decode(bytes.clone()).unwrap();
        assert_eq!(doc.format.encoding, TextEncoding::Legacy(encoding_rs::SHIFT_JIS));
        assert_eq!(doc.text, japanese);
        assert_eq!(doc.encode().unwrap(), bytes);

        let bytes = encoding_rs::EUC_JP.encode(japanese).0.into_owned();
        let doc = decode(bytes.clone()).unwrap();
        assert_eq!(doc.format.encoding, TextEncoding::Legacy(encoding_rs::EUC_JP));
        assert_eq!(doc.encode().unwrap(), bytes);

        let latin = b"Caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade, \xfcber gro\xdfe Stra\xdfe.\n".to_vec();
        let doc = decode(latin.clone()).unwrap();
        assert_eq!(doc.format.encoding, TextEncoding::Legacy(encoding_rs::WINDOWS_1252));
        assert!(doc.text.starts_with("Café crème"));
        assert_eq!(doc.encode().unwrap(), latin);
    }

    #[test]
    fn binary_is_refused() {
        assert_eq!(decode(b"abc\0def".to_vec()), Err(NotText::Binary));
        let noise: Vec<u8> = (0u8..=255).cycle().take(4096).filter(|b| *b != 0).collect();
        assert!(decode(noise).is_err());
        let controls = vec![1u8, 2, 3, 4, 5, 6, 7, 8, b'a', b'b'];
        assert_eq!(decode(controls), Err(NotText::Binary));
        // UTF-16 with a NUL character
        let bytes = encode_text(Format { encoding: TextEncoding::Utf16Le, bom: true }, "a\0b").unwrap();
        assert_eq!(decode(bytes), Err(NotText::Binary));
        // odd length UTF-16
        assert_eq!(decode(b"\xFF\xFEa\0b".to_vec()), Err(NotText::Binary));
    }

    #[test]
    fn unencodable_characters_are_reported() {
        let format = Format { encoding: TextEncoding::Legacy(encoding_rs::SHIFT_JIS), bom: false };
        let err = encode_text(format, "日本😀").unwrap_err();
        assert_eq!(err.character, '😀');
        assert!(check_encodable(format, "日本").is_ok());
    }

    #[test]
    fn sniffing_an_incomplete_utf8_sample() {
        let text = "ééé".as_bytes();
        assert_eq!(sniff(&text[..3], false), Ok(Format::UTF8));
    }

    #[test]
    fn stream_decoder_handles_split_sequences() {
        let bytes = "aé日\n".as_bytes();
        let mut decoder = StreamDecoder::new(Format::UTF8);
        let mut out = String::new();
        let mut all = String::new();
        for (i, chunk) in bytes.chunks(1).enumerate() {
            decoder.decode(chunk, i + 1 == bytes.len(), &mut out).unwrap();
            all.push_str(&out);
        }
        assert_eq!(all, "aé日\n");
    }
}
