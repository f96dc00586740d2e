//! Minisign keys and signatures for marketplace authors.

use minisign::{KeyPair, PublicKey, SecretKey, SecretKeyBox};

use crate::error::{PluginError, Result};

/// A fresh minisign key pair.
#[derive(Debug, Clone)]
pub struct GeneratedKeypair {
    /// The public key as the base64 line (`RW...`) that `marketplace add --key` pins.
    pub public_key: String,
    /// The public key file content (`untrusted comment:` line, then the base64 line).
    pub public_key_file: String,
    /// The secret key file content (minisign format, not password protected).
    pub secret_key_file: String,
}

/// Generates an Ed25519 minisign key pair whose secret key is not password protected.
pub fn generate_keypair() -> Result<GeneratedKeypair> {
    let KeyPair { pk, sk } =
        KeyPair::generate_unencrypted_keypair().map_err(|e| PluginError::Key(e.to_string()))?;
    let public_key = pk.to_base64();
    let public_key_file = pk.to_box().map_err(|e| PluginError::Key(e.to_string()))?.to_string();
    let secret_key_file = sk
        .to_box(Some("hooks marketplace secret key"))
        .map_err(|e| PluginError::Key(e.to_string()))?
        .to_string();
    Ok(GeneratedKeypair { public_key, public_key_file, secret_key_file })
}

/// Reads a minisign secret key file's content; `password` is needed for protected keys.
/// Both kinds `minisign -G` makes are read: password protected, and unencrypted (`-W`,
/// whose checksum field the C tool leaves zero, so the key is checked by signing a probe
/// and verifying it with its own public half instead).
pub(crate) fn load_secret_key(text: &str, password: Option<&str>) -> Result<SecretKey> {
    let sk_box = SecretKeyBox::from_string(text).map_err(|e| PluginError::Key(e.to_string()))?;
    if let Some(sk) = unencrypted_key(text) {
        return Ok(sk);
    }
    match password {
        Some(pw) => SecretKey::from_box(sk_box, Some(pw.to_owned()))
            .map_err(|e| PluginError::Key(e.to_string())),
        None => Err(PluginError::Key(
            "cannot read secret key: it is password protected (give the password) or not a \
             minisign secret key"
                .to_owned(),
        )),
    }
}

/// The key of an unencrypted minisign secret key file (`kdf` algorithm zero), checked.
fn unencrypted_key(text: &str) -> Option<SecretKey> {
    let line =
        text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("untrusted"))?;
    let sk = SecretKey::from_bytes(&base64_decode(line)?).ok()?;
    if sk.is_encrypted() {
        return None;
    }
    let pk = PublicKey::from_secret_key(&sk).ok()?;
    let probe = b"hooks secret key check";
    let sig = minisign::sign(Some(&pk), &sk, &probe[..], None, None).ok()?;
    minisign::verify(&pk, &sig, std::io::Cursor::new(&probe[..]), true, false, false).ok()?;
    Some(sk)
}

/// Standard base64 (with `=` padding) decoded; `None` for anything else.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let body = text.trim_end_matches('=').as_bytes();
    if !text.len().is_multiple_of(4) || text.len() - body.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    Some(out)
}

/// Signs bytes; returns the `.minisig` file content and the signer's public key line.
pub(crate) fn sign_bytes(
    sk: &SecretKey,
    bytes: &[u8],
    trusted_comment: &str,
) -> Result<(String, String)> {
    let pk = PublicKey::from_secret_key(sk).map_err(|e| PluginError::Key(e.to_string()))?;
    let sig = minisign::sign(
        Some(&pk),
        sk,
        bytes,
        Some(trusted_comment),
        Some("signature from hooks marketplace build"),
    )
    .map_err(|e| PluginError::Key(e.to_string()))?;
    Ok((sig.into_string(), pk.to_base64()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn signatures_verify_with_minisign_verify() {
        let kp = generate_keypair().unwrap();
        let sk = load_secret_key(&kp.secret_key_file, None).unwrap();
        let (sig, pk) = sign_bytes(&sk, b"hello", "t").unwrap();
        assert_eq!(pk, kp.public_key);
        let vk = minisign_verify::PublicKey::from_base64(&kp.public_key).unwrap();
        let s = minisign_verify::Signature::decode(&sig).unwrap();
        vk.verify(b"hello", &s, false).unwrap();
        assert!(vk.verify(b"hellO", &s, false).is_err());
        let other = generate_keypair().unwrap();
        let vk2 = minisign_verify::PublicKey::from_base64(&other.public_key).unwrap();
        assert!(vk2.verify(b"hello", &s, false).is_err());
        assert!(load_secret_key("garbage", None).is_err());
    }

    /// Keys made by the `minisign` program (0.11): `-G -W` (unencrypted, zero checksum)
    /// and `-G` with the password `pw123` (decrypted once: its scrypt costs a 1 GiB,
    /// many-second derivation in a debug build).
    #[test]
    fn keys_made_by_minisign_of_both_kinds() {
        let keys = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/keys");
        let read = |f: &str| std::fs::read_to_string(format!("{keys}/{f}")).unwrap();
        for (key, pub_file, password) in
            [("unenc.key", "unenc.pub", None), ("enc.key", "enc.pub", Some("pw123"))]
        {
            let sk = load_secret_key(&read(key), password).unwrap();
            let (sig, pk) = sign_bytes(&sk, b"index", "t").unwrap();
            let pub_line = read(pub_file).lines().last().unwrap().trim().to_owned();
            assert_eq!(pk, pub_line, "{key}");
            let vk = minisign_verify::PublicKey::from_base64(&pub_line).unwrap();
            vk.verify(b"index", &minisign_verify::Signature::decode(&sig).unwrap(), false).unwrap();
        }
        let e = load_secret_key(&read("enc.key"), None).unwrap_err().to_string();
        assert!(e.contains("password protected"), "{e}");
        // A damaged unencrypted key (its public half changed) is refused.
        let text = read("unenc.key");
        let line = text.lines().nth(1).unwrap();
        let mut b = base64_decode(line).unwrap();
        let n = b.len();
        b[n - 40] ^= 1;
        assert!(unencrypted_key(&format!("c\n{}\n", encode(&b))).is_none());
        assert_eq!(base64_decode("aGk="), Some(b"hi".to_vec()));
        assert_eq!(base64_decode("a"), None);
    }

    fn encode(b: &[u8]) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for c in b.chunks(3) {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for i in 0..4 {
                if i <= c.len() {
                    out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }
}
