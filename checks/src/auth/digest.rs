//! HTTP Digest authentication (RFC 7616, and RFC 2617's MD5): answering a server's challenge.

use md5::{Digest as _, Md5};
use ring::digest;

use super::hex;
use crate::error::CheckError;

/// One challenge of a `WWW-Authenticate` header: its scheme and parameters.
#[derive(Debug, PartialEq)]
pub(crate) struct Challenge {
    pub scheme: String,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The challenges of one `WWW-Authenticate` value (which may hold several).
pub(crate) fn parse_challenges(header: &str) -> Vec<Challenge> {
    let mut challenges: Vec<Challenge> = Vec::new();
    let mut rest = header;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        if rest.is_empty() {
            return challenges;
        }
        let end = rest
            .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let token = &rest[..end];
        rest = &rest[end..];
        let after_space = rest.trim_start_matches([' ', '\t']);
        if let Some(value_start) = after_space.strip_prefix('=') {
            let (value, remainder) = parse_value(value_start.trim_start());
            rest = remainder;
            if let Some(current) = challenges.last_mut() {
                current.params.push((token.to_ascii_lowercase(), value));
            }
        } else {
            challenges.push(Challenge {
                scheme: token.to_owned(),
                params: Vec::new(),
            });
        }
    }
}

/// A quoted string (with backslash escapes) or a token; returns it and what follows.
fn parse_value(text: &str) -> (String, &str) {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[at + 1..]),
                other => value.push(other),
            }
        }
        (value, "")
    } else {
        let end = text
            .find(|c: char| c == ',' || c.is_whitespace())
            .unwrap_or(text.len());
        (text[..end].to_owned(), &text[end..])
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Algorithm {
    Md5,
    Sha256,
}

impl Algorithm {
    fn hash(self, data: &str) -> String {
        match self {
            Self::Md5 => hex(&Md5::digest(data.as_bytes())),
            Self::Sha256 => hex(digest::digest(&digest::SHA256, data.as_bytes()).as_ref()),
        }
    }
}

/// A Digest challenge this client can answer: its hash, whether it is a
/// `-sess` variant, and whether it asks for `qop=auth` (absent is RFC 2069's form).
struct Usable<'a> {
    challenge: &'a Challenge,
    algorithm: Algorithm,
    session: bool,
    qop_auth: bool,
}

fn usable(challenge: &Challenge) -> Option<Usable<'_>> {
    if !challenge.scheme.eq_ignore_ascii_case("digest") {
        return None;
    }
    challenge.param("nonce")?;
    let (algorithm, session) = match challenge
        .param("algorithm")
        .unwrap_or("MD5")
        .to_ascii_uppercase()
        .as_str()
    {
        "MD5" => (Algorithm::Md5, false),
        "MD5-SESS" => (Algorithm::Md5, true),
        "SHA-256" => (Algorithm::Sha256, false),
        "SHA-256-SESS" => (Algorithm::Sha256, true),
        _ => return None,
    };
    let qop_auth = match challenge.param("qop") {
        None => false,
        Some(qops) => {
            if !qops
                .split(',')
                .any(|q| q.trim().eq_ignore_ascii_case("auth"))
            {
                return None;
            }
            true
        }
    };
    Some(Usable {
        challenge,
        algorithm,
        session,
        qop_auth,
    })
}

/// The `Authorization` value answering the best Digest challenge among
/// `headers` (SHA-256 preferred over MD5) for `method` on `uri` (path and query).
pub(crate) fn authorization(
    headers: &[String],
    username: &str,
    password: &str,
    method: &str,
    uri: &str,
    cnonce: &str,
) -> Result<String, CheckError> {
    let challenges: Vec<Challenge> = headers.iter().flat_map(|h| parse_challenges(h)).collect();
    let mut candidates: Vec<Usable<'_>> = challenges.iter().filter_map(usable).collect();
    candidates.sort_by_key(|c| c.algorithm != Algorithm::Sha256);
    let Some(chosen) = candidates.into_iter().next() else {
        let digest_offered = challenges
            .iter()
            .any(|c| c.scheme.eq_ignore_ascii_case("digest"));
        return Err(CheckError::new(if digest_offered {
            "the server's digest challenge needs an algorithm or qop other than MD5/SHA-256 with qop=auth"
        } else {
            "the server answered 401 without a Digest challenge"
        }));
    };
    Ok(answer(&chosen, username, password, method, uri, cnonce))
}

fn answer(
    chosen: &Usable<'_>,
    username: &str,
    password: &str,
    method: &str,
    uri: &str,
    cnonce: &str,
) -> String {
    let challenge = chosen.challenge;
    let h = |data: &str| chosen.algorithm.hash(data);
    let realm = challenge.param("realm").unwrap_or("");
    let nonce = challenge.param("nonce").unwrap_or("");
    let nc = "00000001";
    let mut ha1 = h(&format!("{username}:{realm}:{password}"));
    if chosen.session {
        ha1 = h(&format!("{ha1}:{nonce}:{cnonce}"));
    }
    let ha2 = h(&format!("{method}:{uri}"));
    let response = if chosen.qop_auth {
        h(&format!("{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}"))
    } else {
        h(&format!("{ha1}:{nonce}:{ha2}"))
    };
    let userhash = challenge
        .param("userhash")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let shown_user = if userhash {
        h(&format!("{username}:{realm}"))
    } else {
        username.to_owned()
    };
    let algorithm = challenge.param("algorithm").unwrap_or("MD5");
    let mut parts = vec![
        format!("username={}", quote(&shown_user)),
        format!("realm={}", quote(realm)),
        format!("nonce={}", quote(nonce)),
        format!("uri={}", quote(uri)),
        format!("algorithm={algorithm}"),
        format!("response={}", quote(&response)),
    ];
    if chosen.qop_auth {
        parts.push("qop=auth".to_owned());
        parts.push(format!("nc={nc}"));
        parts.push(format!("cnonce={}", quote(cnonce)));
    }
    if let Some(opaque) = challenge.param("opaque") {
        parts.push(format!("opaque={}", quote(opaque)));
    }
    if userhash {
        parts.push("userhash=true".to_owned());
    }
    format!("Digest {}", parts.join(", "))
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response_of(authorization: &str) -> String {
        parse_challenges(authorization)[0]
            .param("response")
            .unwrap()
            .to_owned()
    }

    #[test]
    fn parses_several_challenges_in_one_header() {
        let parsed = parse_challenges(
            r#"Basic realm="x", Digest realm="a \"b\"", qop="auth,auth-int", nonce=abc, algorithm=SHA-256"#,
        );
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].scheme, "Basic");
        assert_eq!(parsed[1].param("realm"), Some("a \"b\""));
        assert_eq!(parsed[1].param("qop"), Some("auth,auth-int"));
        assert_eq!(parsed[1].param("nonce"), Some("abc"));
        assert_eq!(parsed[1].param("algorithm"), Some("SHA-256"));
    }

    #[test]
    fn rfc_2617_example() {
        let challenge = r#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#;
        let header = authorization(
            &[challenge.to_owned()],
            "Mufasa",
            "Circle Of Life",
            "GET",
            "/dir/index.html",
            "0a4f113b",
        )
        .unwrap();
        assert_eq!(response_of(&header), "6629fae49393a05397450978507c4ef1");
        assert!(header.contains("opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""));
        assert!(header.contains("qop=auth, nc=00000001, cnonce=\"0a4f113b\""));
    }

    #[test]
    fn rfc_7616_example_prefers_sha_256() {
        let common = r#"realm="http-auth@example.org", qop="auth, auth-int", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#;
        let headers = [
            format!("Digest {common}, algorithm=MD5"),
            format!("Digest {common}, algorithm=SHA-256"),
        ];
        let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";
        let sha = authorization(
            &headers,
            "Mufasa",
            "Circle of Life",
            "GET",
            "/dir/index.html",
            cnonce,
        )
        .unwrap();
        assert!(sha.contains("algorithm=SHA-256"));
        assert_eq!(
            response_of(&sha),
            "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"
        );
        let md5 = authorization(
            &headers[..1],
            "Mufasa",
            "Circle of Life",
            "GET",
            "/dir/index.html",
            cnonce,
        )
        .unwrap();
        assert_eq!(response_of(&md5), "8ca523f5e9506fed4657c9700eebdbec");
    }

    #[test]
    fn unanswerable_challenges_are_named() {
        let error = authorization(
            &[r#"Digest realm="r", nonce="n", qop="auth-int""#.to_owned()],
            "u",
            "p",
            "GET",
            "/",
            "c",
        )
        .unwrap_err();
        assert!(error.0.contains("qop"), "{error}");
        let error = authorization(
            &[r#"Basic realm="r""#.to_owned()],
            "u",
            "p",
            "GET",
            "/",
            "c",
        )
        .unwrap_err();
        assert!(error.0.contains("without a Digest challenge"), "{error}");
    }
}
