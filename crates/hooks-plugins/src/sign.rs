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
pub(crate) fn load_secret_key(text: &str, password: Option<&str>) -> Result<SecretKey> {
    let sk_box = SecretKeyBox::from_string(text).map_err(|e| PluginError::Key(e.to_string()))?;
    let unprotected = SecretKey::from_unencrypted_box(sk_box.clone());
    match (unprotected, password) {
        (Ok(sk), _) => Ok(sk),
        (Err(_), Some(pw)) => SecretKey::from_box(sk_box, Some(pw.to_owned()))
            .map_err(|e| PluginError::Key(e.to_string())),
        (Err(e), None) => Err(PluginError::Key(format!(
            "cannot read secret key (password protected keys need a password): {e}"
        ))),
    }
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
}
