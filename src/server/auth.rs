//! Who is connecting: a JWT verified with the configured key, or nobody when authentication is
//! off. The token's claims name a subject, a role and optionally the one session it may open;
//! the role decides which frames the connection may send.

use std::fmt;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use crate::conversation::{Role, Signal};

/// Clock skew allowed on `exp` and `nbf`, in seconds.
const LEEWAY_SECS: u64 = 30;

/// Longest token read, in bytes (a JWT with a few claims is a few hundred).
const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// What a connection may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Access {
    /// User messages and user signals.
    User,
    /// Assistant messages and assistant signals: the service that produces replies.
    Assistant,
    /// Receives frames; sends nothing that changes the session.
    Observer,
    /// Everything, in every session.
    Admin,
}

impl Access {
    /// Whether this access may send a message in `role`.
    pub(crate) fn may_speak_as(self, role: Role) -> bool {
        match self {
            Access::Admin => true,
            Access::User => role == Role::User,
            Access::Assistant => role == Role::Assistant,
            Access::Observer => false,
        }
    }

    /// Whether this access may send `signal` explicitly: `start_work` and `work_done` are the
    /// assistant's, the others the user's (the spec's table of signals).
    pub(crate) fn may_signal(self, signal: Signal) -> bool {
        self.may_speak_as(signal.sender())
    }

    /// Whether this access may reset the session (the user's choice, or an admin's).
    pub(crate) fn may_reset(self) -> bool {
        matches!(self, Access::User | Access::Admin)
    }
}

/// The verified claims of a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Principal {
    /// The subject (`sub`).
    pub(crate) subject: String,
    pub(crate) access: Access,
    /// The one session this token may open (`sid`), if it is restricted.
    pub(crate) session: Option<String>,
    /// When the token stops being accepted (`exp` and the leeway, seconds since the epoch): a
    /// WebSocket opened with it is closed then (`token_expired`).
    pub(crate) expires: Option<i64>,
}

impl Principal {
    /// Whether this token opens session `id`, owned by `owner`. A token naming a session in
    /// `sid` opens that one and no other, whoever owns it (the issuer granted it: how an
    /// assistant service or an observer joins a user's session). Otherwise, admin tokens open
    /// every session and the owner's tokens open theirs. A session created with authentication
    /// off has no owner: only an admin or a token naming it opens it.
    pub(crate) fn may_open(&self, id: &str, owner: Option<&str>) -> bool {
        match &self.session {
            Some(only) => only == id,
            None => self.access == Access::Admin || owner == Some(self.subject.as_str()),
        }
    }

    /// Whether this token is an admin's for everything: the role, and no `sid` restricting it.
    pub(crate) fn is_admin(&self) -> bool {
        self.access == Access::Admin && self.session.is_none()
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    // Required (the validation's spec claims); optional here so that a token without it is
    // refused as such.
    #[serde(default)]
    exp: Option<i64>,
    #[serde(default)]
    role: Option<Access>,
    #[serde(default)]
    sid: Option<String>,
}

/// Why a token was refused; the message is safe to send back (it never holds the token).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TokenRefused(pub(crate) String);

impl fmt::Display for TokenRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The token verifier, built once at start-up from the configuration.
pub(crate) struct Verifier {
    key: DecodingKey,
    validation: Validation,
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the key.
        f.debug_struct("Verifier")
            .field("algorithms", &self.validation.algorithms)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// From an HS256 secret or a PEM public key (RSA for RS256, EC P-256 for ES256), with
    /// optional issuer and audience checks. `None` when neither key is configured.
    pub(crate) fn from_config(
        secret: Option<&str>,
        public_key_pem: Option<&[u8]>,
        issuer: Option<&str>,
        audience: Option<&str>,
    ) -> Result<Option<Verifier>, String> {
        let (key, algorithm) = match (secret, public_key_pem) {
            (None, None) => return Ok(None),
            (Some(_), Some(_)) => {
                return Err("jwt_secret and jwt_public_key: configure one, not both".into());
            }
            (Some(secret), None) => {
                if secret.len() < 32 {
                    return Err("jwt_secret: at least 32 bytes (HS256 needs a long secret)".into());
                }
                (
                    DecodingKey::from_secret(secret.as_bytes()),
                    Algorithm::HS256,
                )
            }
            (None, Some(pem)) => match DecodingKey::from_rsa_pem(pem) {
                Ok(key) => (key, Algorithm::RS256),
                Err(_) => match DecodingKey::from_ec_pem(pem) {
                    Ok(key) => (key, Algorithm::ES256),
                    Err(e) => {
                        return Err(format!(
                            "jwt_public_key: not an RSA or EC public key in PEM: {e}"
                        ));
                    }
                },
            },
        };
        let mut validation = Validation::new(algorithm);
        validation.leeway = LEEWAY_SECS;
        // A token must name the issuer and the audience configured: one that leaves either
        // out is refused like one that names another. A token not valid yet (`nbf`) too.
        let mut required = vec!["exp", "sub"];
        required.extend(issuer.map(|_| "iss"));
        required.extend(audience.map(|_| "aud"));
        validation.set_required_spec_claims(&required);
        validation.validate_nbf = true;
        if let Some(issuer) = issuer {
            validation.set_issuer(&[issuer]);
        }
        match audience {
            Some(audience) => validation.set_audience(&[audience]),
            None => validation.validate_aud = false,
        }
        Ok(Some(Verifier { key, validation }))
    }

    /// The principal a token names, or why it is refused.
    pub(crate) fn verify(&self, token: &str) -> Result<Principal, TokenRefused> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenRefused(format!(
                "the token is over {MAX_TOKEN_BYTES} bytes"
            )));
        }
        let data = jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation)
            .map_err(|e| TokenRefused(format!("the token is not valid: {}", describe(&e))))?;
        let claims = data.claims;
        if claims.sub.is_empty() || claims.sub.len() > 256 {
            return Err(TokenRefused(
                "the token's sub is empty or over 256 bytes".into(),
            ));
        }
        Ok(Principal {
            subject: claims.sub,
            access: claims.role.unwrap_or(Access::User),
            session: claims.sid,
            expires: claims.exp.map(|exp| exp.saturating_add(LEEWAY_SECS as i64)),
        })
    }
}

/// What went wrong with a token, in words that never quote it.
fn describe(e: &jsonwebtoken::errors::Error) -> &'static str {
    use jsonwebtoken::errors::ErrorKind as K;
    match e.kind() {
        K::ExpiredSignature => "it has expired",
        K::ImmatureSignature => "it is not valid yet (nbf)",
        K::InvalidSignature => "its signature does not match",
        K::InvalidIssuer => "wrong issuer",
        K::InvalidAudience => "wrong audience",
        K::InvalidAlgorithm | K::InvalidAlgorithmName => "wrong algorithm",
        K::MissingRequiredClaim(claim) => match claim.as_str() {
            "iss" => "a required claim is missing: iss (the issuer)",
            "aud" => "a required claim is missing: aud (the audience)",
            "sub" => "a required claim is missing: sub",
            _ => "a required claim is missing: exp",
        },
        K::Json(_) => "its claims are not the expected ones (sub, role, sid, exp)",
        _ => "it is malformed",
    }
}

/// API keys: static secrets for the HTTP API and the metrics, for setups without tokens.
pub(crate) struct ApiKeys(Vec<Box<[u8]>>);

impl fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKeys({} keys)", self.0.len())
    }
}

impl ApiKeys {
    /// One key per line; blank lines and lines starting with `#` are skipped. A key has at
    /// least 32 characters.
    pub(crate) fn parse(text: &str, source: &str) -> Result<ApiKeys, String> {
        let mut keys = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let key = line.trim();
            if key.is_empty() || key.starts_with('#') {
                continue;
            }
            if key.len() < 32 {
                return Err(format!(
                    "{source}:{}: an API key has at least 32 characters",
                    n + 1
                ));
            }
            keys.push(key.as_bytes().into());
        }
        if keys.is_empty() {
            return Err(format!("{source}: no API key in the file"));
        }
        Ok(ApiKeys(keys))
    }

    /// Whether `presented` is one of the keys, compared in time that does not depend on where
    /// it differs.
    pub(crate) fn admits(&self, presented: &str) -> bool {
        let presented = presented.as_bytes();
        let mut found = false;
        for key in &self.0 {
            let same_length = key.len() == presented.len();
            let diff = key
                .iter()
                .zip(presented)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b));
            found |= same_length && diff == 0;
        }
        found
    }
}

/// The token of a request: `Authorization: Bearer T`, or `token` in the query (browsers cannot
/// set headers on a WebSocket).
pub(crate) fn presented<'a>(
    authorization: Option<&'a str>,
    query_token: Option<&'a str>,
) -> Option<&'a str> {
    authorization
        .and_then(|h| {
            h.strip_prefix("Bearer ")
                .or_else(|| h.strip_prefix("bearer "))
        })
        .map(str::trim)
        .or(query_token)
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header, encode};

    const SECRET: &str = "a-test-secret-that-is-long-enough-32";

    fn token(claims: serde_json::Value, secret: &str) -> String {
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap()
    }

    fn exp(offset: i64) -> i64 {
        chrono::Utc::now().timestamp() + offset
    }

    #[test]
    fn tokens_are_verified_and_refused_for_the_right_reasons() {
        let v = Verifier::from_config(Some(SECRET), None, Some("iss-a"), Some("aud-a"))
            .unwrap()
            .unwrap();
        let good = serde_json::json!({"sub": "u1", "exp": exp(60), "iss": "iss-a", "aud": "aud-a", "role": "assistant", "sid": "s-1"});
        assert_eq!(
            v.verify(&token(good.clone(), SECRET)),
            Ok(Principal {
                subject: "u1".into(),
                access: Access::Assistant,
                session: Some("s-1".into()),
                expires: good["exp"].as_i64().map(|e| e + LEEWAY_SECS as i64),
            })
        );
        let refused = |claims: serde_json::Value, secret: &str| {
            v.verify(&token(claims, secret)).unwrap_err().0
        };
        let mut c = good.clone();
        c["exp"] = exp(-120).into();
        assert!(refused(c, SECRET).contains("expired"));
        assert!(
            refused(good.clone(), "another-secret-that-is-long-enough-x").contains("signature")
        );
        let mut c = good.clone();
        c["iss"] = "iss-b".into();
        assert!(refused(c, SECRET).contains("issuer"));
        let mut c = good.clone();
        c["aud"] = "aud-b".into();
        assert!(refused(c, SECRET).contains("audience"));
        let mut c = good.clone();
        c.as_object_mut().unwrap().remove("exp");
        assert!(refused(c, SECRET).contains("required claim is missing: exp"));
        // With an issuer and an audience configured, a token must name them.
        for (claim, words) in [("iss", "missing: iss"), ("aud", "missing: aud")] {
            let mut c = good.clone();
            c.as_object_mut().unwrap().remove(claim);
            assert!(refused(c, SECRET).contains(words), "{claim}");
        }
        // Not valid yet: refused (past the leeway).
        let mut c = good.clone();
        c["nbf"] = exp(600).into();
        assert!(refused(c, SECRET).contains("not valid yet"));
        let mut c = good.clone();
        c["nbf"] = exp(-5).into();
        assert!(v.verify(&token(c, SECRET)).is_ok());
        let mut c = good.clone();
        c["role"] = "owner".into();
        assert!(refused(c, SECRET).contains("claims"));
        assert!(v.verify("not.a.token").unwrap_err().0.contains("malformed"));
        // Within the leeway, an expired token still passes.
        let mut c = good;
        c["exp"] = exp(-10).into();
        assert!(v.verify(&token(c, SECRET)).is_ok());
    }

    #[test]
    fn public_keys_verify_rs256_and_es256() {
        let keys = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/keys/");
        let read = |name: &str| std::fs::read(format!("{keys}{name}")).unwrap();
        let claims = serde_json::json!({"sub": "svc", "role": "assistant", "exp": exp(60)});
        for (algorithm, private, public) in [
            (
                Algorithm::RS256,
                EncodingKey::from_rsa_pem(&read("rs256-private.pem")).unwrap(),
                read("rs256-public.pem"),
            ),
            (
                Algorithm::ES256,
                EncodingKey::from_ec_pem(&read("es256-private.pk8.pem")).unwrap(),
                read("es256-public.pem"),
            ),
        ] {
            let v = Verifier::from_config(None, Some(&public), None, None)
                .unwrap()
                .unwrap();
            let token = encode(&Header::new(algorithm), &claims, &private).unwrap();
            assert_eq!(v.verify(&token).unwrap().access, Access::Assistant);
            // An HS256 token signed with the public key's text is refused: no algorithm
            // confusion.
            let forged = encode(
                &Header::new(Algorithm::HS256),
                &claims,
                &EncodingKey::from_secret(&public),
            )
            .unwrap();
            assert!(v.verify(&forged).is_err(), "{algorithm:?}");
        }
    }

    #[test]
    fn short_secrets_and_two_keys_are_refused() {
        assert!(Verifier::from_config(Some("short"), None, None, None).is_err());
        assert!(Verifier::from_config(Some(SECRET), Some(b"x"), None, None).is_err());
        assert!(Verifier::from_config(None, Some(b"not pem"), None, None).is_err());
        assert!(
            Verifier::from_config(None, None, None, None)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn roles_decide_what_may_be_sent() {
        assert!(Access::User.may_speak_as(Role::User));
        assert!(!Access::User.may_speak_as(Role::Assistant));
        assert!(Access::Assistant.may_speak_as(Role::Assistant));
        assert!(!Access::Assistant.may_speak_as(Role::User));
        assert!(!Access::Observer.may_speak_as(Role::User));
        assert!(Access::Admin.may_speak_as(Role::Assistant));
        assert!(Access::User.may_signal(Signal::Approve));
        assert!(!Access::User.may_signal(Signal::WorkDone));
        assert!(Access::Assistant.may_signal(Signal::StartWork));
        assert!(!Access::Assistant.may_signal(Signal::Satisfied));
        assert!(!Access::Observer.may_signal(Signal::Cancel));
        assert!(!Access::Assistant.may_reset() && Access::User.may_reset());
    }

    #[test]
    fn api_keys_are_read_and_matched_whole() {
        let key = "k".repeat(40);
        let keys = ApiKeys::parse(&format!("# ops\n\n{key}\n"), "keys").unwrap();
        assert!(keys.admits(&key));
        assert!(!keys.admits(&key[..39]));
        assert!(!keys.admits(&format!("{key}x")));
        assert!(!keys.admits(""));
        assert_eq!(
            ApiKeys::parse("short\n", "keys").unwrap_err(),
            "keys:1: an API key has at least 32 characters"
        );
        assert!(ApiKeys::parse("# nothing\n", "keys").is_err());
    }

    #[test]
    fn the_token_comes_from_the_header_or_the_query() {
        assert_eq!(presented(Some("Bearer abc"), Some("q")), Some("abc"));
        assert_eq!(presented(None, Some("q")), Some("q"));
        assert_eq!(presented(Some("Basic x"), None), None);
        assert_eq!(presented(None, Some("")), None);
    }
}
