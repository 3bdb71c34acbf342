//! A text as a redactor searches it: decoded the ways servers and libraries encode a secret
//! (JSON escapes, percent-escapes in either case, `+` for a space), with whitespace taken out
//! (a value wrapped across lines), each byte remembering which bytes of the text it came from.

/// One byte of a view, and the range of the original text it stands for.
#[derive(Clone, Copy)]
struct Unit {
    byte: u8,
    from: u32,
    to: u32,
}

/// The bytes of a view, and where each came from.
pub struct View {
    units: Vec<Unit>,
    bytes: Vec<u8>,
}

impl View {
    /// Every view of `text` to search: as it is; JSON escapes decoded once and twice (a JSON
    /// string inside a JSON string); percent-escapes decoded, of the text and of its JSON
    /// decoding; and with `+` as a space. All without whitespace. The decodings are kept apart,
    /// so that a secret holding `%41` or `\u` is still found as written.
    pub fn all(text: &str) -> Vec<View> {
        let raw: Vec<Unit> = text
            .char_indices()
            .flat_map(|(at, c)| {
                let (from, to) = (at as u32, (at + c.len_utf8()) as u32);
                text.as_bytes()[at..at + c.len_utf8()]
                    .iter()
                    .map(move |&byte| Unit { byte, from, to })
            })
            .collect();
        let mut views = vec![View::squeezed(&raw)];
        let mut add = |units: Vec<Unit>, from: &[Unit]| {
            let changed = units.len() != from.len();
            if changed {
                views.push(View::squeezed(&units));
            }
            changed.then_some(units)
        };
        if let Some(json) = add(decode(&raw, Escapes::Json), &raw) {
            add(decode(&json, Escapes::Json), &json);
            add(decode(&json, Escapes::Percent), &json);
        }
        add(decode(&raw, Escapes::Percent), &raw);
        if text.contains('+') {
            views.push(View::squeezed(&decode(&raw, Escapes::PercentPlus)));
        }
        views
    }

    /// Without whitespace (ASCII, and the escapes of it that decoding leaves).
    fn squeezed(units: &[Unit]) -> View {
        let units: Vec<Unit> = units
            .iter()
            .copied()
            .filter(|u| !u.byte.is_ascii_whitespace())
            .collect();
        let bytes = units.iter().map(|u| u.byte).collect();
        View { units, bytes }
    }

    /// The ranges of the original text where `needle` occurs in this view.
    pub fn find(&self, needle: &[u8], out: &mut Vec<(usize, usize)>) {
        for at in memchr::memmem::find_iter(&self.bytes, needle) {
            let first = self.units[at];
            let last = self.units[at + needle.len() - 1];
            out.push((first.from as usize, last.to.max(first.to) as usize));
        }
    }
}

/// Which escapes one decoding reads.
#[derive(Clone, Copy, PartialEq)]
enum Escapes {
    /// JSON's: `\uXXXX` (with surrogate pairs), `\n`, `\/`, …
    Json,
    /// `%2f` and `%2F`.
    Percent,
    /// Percent-escapes, and `+` as a space (a form body, a query).
    PercentPlus,
}

/// `units` with one kind of escape decoded, each decoded byte standing for the whole escape.
fn decode(units: &[Unit], escapes: Escapes) -> Vec<Unit> {
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        let here = units[i];
        let span = |n: usize| (here.from, units[i + n - 1].to);
        let json = (escapes == Escapes::Json)
            .then(|| json_escape(&units[i..]))
            .flatten();
        let percent = (escapes != Escapes::Json)
            .then(|| percent(&units[i..]))
            .flatten();
        if let Some((c, used)) = json {
            let (from, to) = span(used);
            let mut buf = [0u8; 4];
            out.extend(
                c.encode_utf8(&mut buf)
                    .bytes()
                    .map(|byte| Unit { byte, from, to }),
            );
            i += used;
        } else if let Some(byte) = percent {
            let (from, to) = span(3);
            out.push(Unit { byte, from, to });
            i += 3;
        } else if escapes == Escapes::PercentPlus && here.byte == b'+' {
            out.push(Unit { byte: b' ', ..here });
            i += 1;
        } else {
            out.push(here);
            i += 1;
        }
    }
    out
}

/// `%XX` (either case) at the start of `units`.
fn percent(units: &[Unit]) -> Option<u8> {
    match units {
        [p, h, l, ..] if p.byte == b'%' => Some(hex(h.byte)? << 4 | hex(l.byte)?),
        _ => None,
    }
}

/// A JSON escape at the start of `units`: the character and how many units it took.
fn json_escape(units: &[Unit]) -> Option<(char, usize)> {
    if units.first()?.byte != b'\\' {
        return None;
    }
    let simple = match units.get(1)?.byte {
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'/' => '/',
        b'\\' => '\\',
        b'"' => '"',
        b'u' => {
            let high = hex4(units.get(2..6)?)?;
            if (0xd800..0xdc00).contains(&high) {
                let rest = units.get(6..12)?;
                if rest[0].byte != b'\\' || rest[1].byte != b'u' {
                    return None;
                }
                let low = hex4(&rest[2..6])?;
                let c = 0x10000 + ((high - 0xd800) << 10) + low.checked_sub(0xdc00)?;
                return Some((char::from_u32(c)?, 12));
            }
            return Some((char::from_u32(high)?, 6));
        }
        _ => return None,
    };
    Some((simple, 2))
}

fn hex4(units: &[Unit]) -> Option<u32> {
    units
        .iter()
        .try_fold(0u32, |n, u| Some(n << 4 | u32::from(hex(u.byte)?)))
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}
