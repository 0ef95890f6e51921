//! Share links: the whole scenario in the page's address, so a link reproduces the same numbers in
//! any browser.
//!
//! The fragment is `#s=<format>.<payload>`: the link format version ([`LINK_FORMAT`]), a dot, then
//! the scenario file (the CLI's JSON, compact) compressed with raw DEFLATE and written in unpadded
//! base64url (RFC 4648 §5), which survives chat clients, e-mail and cover letters unescaped. The
//! fragment never reaches a server, so a long scenario costs nothing but address-bar length.
//!
//! Compression is miniz_oxide (pure Rust, no JS glue), so encoding and decoding are the same code
//! natively (tested here) and in the browser. [`encode`] and [`decode`] run in the check worker
//! (`ToWorker::Link` / `ToWorker::OpenLink`), never in the page's wasm, which keeps DEFLATE out
//! of it (33 KB); the page keeps [`Link::parse`] and the base64. Old links, `?scenario=NAME&runs=N&seed=S`, are read
//! by the app as before; [`Link::parse`] tells the two apart.
//!
//! Every failure is a [`LinkError`] with a message a reader can act on; the page shows it and falls
//! back to the default scenario.

use std::fmt;

use schedlab_core::experiment::Scenario;

/// The link format this build writes and reads: `1` = base64url(deflate(scenario JSON)).
pub const LINK_FORMAT: u32 = 1;
/// The fragment key of a share link (`#s=...`).
pub const FRAGMENT_KEY: &str = "s";
/// Largest scenario JSON a link may inflate to (an rt-app file may be up to 4 MiB; a link that
/// inflates past this is corrupt or hostile, and must not hang the page).
pub const MAX_SCENARIO_BYTES: usize = 8 << 20;
/// DEFLATE level: the best ratio; scenarios are a few KiB, so speed does not matter.
const LEVEL: u8 = 10;

/// Why a share link cannot be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// No `<format>.` prefix, or the format is not a number.
    Malformed,
    /// A link format this build does not read (made by another version of the page).
    Version { found: String },
    /// A character outside base64url, or a length no base64 text can have.
    Base64,
    /// The payload is not a DEFLATE stream (truncated or altered while copied).
    Inflate,
    /// The payload inflates to more than [`MAX_SCENARIO_BYTES`].
    TooLarge,
    /// The payload is not UTF-8.
    Text,
    /// The text is not a scenario this build accepts (the core's message).
    Scenario(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let damaged = "the link is damaged (was it cut short or changed when copied?)";
        match self {
            LinkError::Malformed => write!(
                f,
                "{damaged}: it should look like #{FRAGMENT_KEY}={LINK_FORMAT}.<scenario>"
            ),
            LinkError::Version { found } => write!(
                f,
                "the link uses format {found}, but this page reads format {LINK_FORMAT}; \
                 open it with the version of Schedlab that made it"
            ),
            LinkError::Base64 => write!(f, "{damaged}: it has characters a link never contains"),
            LinkError::Inflate => write!(f, "{damaged}: its scenario does not decompress"),
            LinkError::TooLarge => write!(
                f,
                "the link's scenario is larger than {} MiB once decompressed",
                MAX_SCENARIO_BYTES >> 20
            ),
            LinkError::Text => write!(f, "{damaged}: its scenario is not text"),
            LinkError::Scenario(m) => write!(f, "the link's scenario cannot be used: {m}"),
        }
    }
}

impl std::error::Error for LinkError {}

/// The payload of a share link (what follows `#s=`) for `scenario`.
pub fn encode(scenario: &Scenario) -> String {
    let json = serde_json::to_string(scenario).expect("a scenario always serializes");
    let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), LEVEL);
    format!("{LINK_FORMAT}.{}", base64url_encode(&deflated))
}

/// The scenario of a share link's payload (what follows `#s=`).
pub fn decode(payload: &str) -> Result<Scenario, LinkError> {
    let (format, data) = payload.trim().split_once('.').ok_or(LinkError::Malformed)?;
    match format.parse::<u32>() {
        Ok(LINK_FORMAT) => {}
        Ok(_) => {
            return Err(LinkError::Version {
                found: format.to_string(),
            })
        }
        Err(_) => return Err(LinkError::Malformed),
    }
    let deflated = base64url_decode(data).ok_or(LinkError::Base64)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_SCENARIO_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => LinkError::TooLarge,
            _ => LinkError::Inflate,
        })?;
    let text = String::from_utf8(json).map_err(|_| LinkError::Text)?;
    Scenario::from_json(&text).map_err(|e| LinkError::Scenario(e.to_string()))
}

/// What the page's address asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// `#s=...`: a whole scenario (the payload, not yet decoded).
    Scenario(String),
    /// `?scenario=NAME&runs=N&seed=S` (any of them), the links of earlier versions.
    Builtin {
        name: Option<String>,
        runs: Option<String>,
        seed: Option<String>,
    },
}

impl Link {
    /// Reads the address: `hash` as `location.hash` gives it (with or without `#`), and the
    /// query's values. A share fragment wins over query parameters.
    pub fn parse(
        hash: &str,
        name: Option<String>,
        runs: Option<String>,
        seed: Option<String>,
    ) -> Link {
        let hash = hash.strip_prefix('#').unwrap_or(hash);
        let payload = hash.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == FRAGMENT_KEY).then(|| v.to_string())
        });
        match payload {
            Some(p) => Link::Scenario(p),
            None => Link::Builtin { name, runs, seed },
        }
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..chunk.len() + 1 {
            out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
    }
    out
}

/// Decodes unpadded base64url (trailing `=` tolerated, as some tools add it); `None` for any
/// other character or an impossible length.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    base64_decode_alphabet(text.trim_end_matches('='), b'-', b'_')
}

/// Decodes unpadded base64 whose alphabet ends in `c62`, `c63` (`+` `/` for standard base64, `-`
/// `_` for base64url); `None` for any other character or an impossible length.
pub fn base64_decode_alphabet(text: &str, c62: u8, c63: u8) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            _ if c == c62 => 62,
            _ if c == c63 => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_core::scenarios;

    #[test]
    fn base64url_round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for n in 0..data.len() {
            let text = base64url_encode(&data[..n]);
            assert!(!text.contains(['+', '/', '=']), "{text}");
            assert_eq!(base64url_decode(&text).as_deref(), Some(&data[..n]));
        }
        // RFC 4648 test vectors, unpadded.
        assert_eq!(base64url_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url_encode(b"fo"), "Zm8");
        assert_eq!(base64url_decode("Zm8=").unwrap(), b"fo");
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_decode("Zm9v+mFy"), None);
        assert_eq!(base64url_decode("Zm9vY"), None);
    }

    #[test]
    fn every_builtin_scenario_survives_a_link_bit_for_bit() {
        for b in scenarios::BUILTIN {
            let s = scenarios::builtin(b.name).unwrap();
            let payload = encode(&s);
            assert!(payload.starts_with("1."));
            let back = decode(&payload).unwrap();
            assert_eq!(back, s, "{}", b.name);
            assert_eq!(back.to_json(), s.to_json());
        }
    }

    #[test]
    fn a_modified_scenario_keeps_its_numbers() {
        let mut s = scenarios::builtin("hikey960-asym-packing").unwrap();
        s.runs = 2;
        s.seed = 9_007_199_254_740_991;
        s.extras.histogram_bucket = Some(0.1 + 0.2);
        let back = decode(&encode(&s)).unwrap();
        assert_eq!(back.seed, s.seed);
        assert_eq!(
            back.extras.histogram_bucket.unwrap().to_bits(),
            (0.1f64 + 0.2).to_bits()
        );
        assert_eq!(back, s);
    }

    #[test]
    fn links_stay_short() {
        let s = scenarios::builtin("tc2-wakeup-rtapp").unwrap();
        let json = serde_json::to_string(&s).unwrap();
        let payload = encode(&s);
        assert!(
            payload.len() < json.len(),
            "{} >= {}",
            payload.len(),
            json.len()
        );
    }

    #[test]
    fn corrupted_links_are_errors_with_a_reason() {
        let good = encode(&scenarios::builtin("hikey960-asym-packing").unwrap());
        assert_eq!(decode("garbage"), Err(LinkError::Malformed));
        assert_eq!(decode("x.abc"), Err(LinkError::Malformed));
        assert_eq!(decode("1.@@@@"), Err(LinkError::Base64));
        assert_eq!(decode("1.AAAA"), Err(LinkError::Inflate));
        // Cut short while copied.
        let cut = &good[..good.len() / 2];
        assert!(matches!(
            decode(cut),
            Err(LinkError::Inflate | LinkError::Base64)
        ));
        // One character changed in the middle: never a panic, always an error or (rarely) a
        // different valid scenario.
        for i in 2..good.len() {
            let mut b = good.clone().into_bytes();
            b[i] = if b[i] == b'A' { b'B' } else { b'A' };
            let _ = decode(std::str::from_utf8(&b).unwrap());
        }
        // Deflated text that is not a scenario: the core's message comes through.
        let not_scenario = format!(
            "1.{}",
            base64url_encode(&miniz_oxide::deflate::compress_to_vec(
                b"{\"version\": 1}",
                6
            ))
        );
        let e = decode(&not_scenario).unwrap_err();
        assert!(matches!(e, LinkError::Scenario(_)), "{e:?}");
        assert!(e.to_string().contains("missing field"), "{e}");
        let binary = format!(
            "1.{}",
            base64url_encode(&miniz_oxide::deflate::compress_to_vec(&[0xff, 0xfe], 6))
        );
        assert_eq!(decode(&binary), Err(LinkError::Text));
    }

    #[test]
    fn a_link_of_another_format_says_so() {
        let e = decode("2.AAAA").unwrap_err();
        assert_eq!(
            e,
            LinkError::Version {
                found: "2".to_string()
            }
        );
        assert!(e.to_string().contains("format 2"), "{e}");
        // A scenario file of another version inside a format-1 link: the core's version message.
        let v2 = format!(
            "1.{}",
            base64url_encode(&miniz_oxide::deflate::compress_to_vec(
                b"{\"version\": 2}",
                6
            ))
        );
        assert!(decode(&v2).unwrap_err().to_string().contains("version"));
    }

    #[test]
    fn a_bomb_is_refused() {
        let big = vec![b' '; MAX_SCENARIO_BYTES + 10];
        let payload = format!(
            "1.{}",
            base64url_encode(&miniz_oxide::deflate::compress_to_vec(&big, 6))
        );
        assert_eq!(decode(&payload), Err(LinkError::TooLarge));
    }

    #[test]
    fn the_fragment_wins_over_old_query_links() {
        let l = Link::parse("#s=1.abc", Some("e1".into()), None, None);
        assert_eq!(l, Link::Scenario("1.abc".into()));
        assert_eq!(
            Link::parse("", Some("e1".into()), Some("3".into()), None),
            Link::Builtin {
                name: Some("e1".into()),
                runs: Some("3".into()),
                seed: None
            }
        );
        assert_eq!(
            Link::parse("#x=1&s=1.q", None, None, None),
            Link::Scenario("1.q".into())
        );
        assert!(matches!(
            Link::parse("#other", None, None, None),
            Link::Builtin { .. }
        ));
    }
}
