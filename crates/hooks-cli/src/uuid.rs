//! Random UUID v4 session ids, read from `/dev/urandom`.

use std::io::Read as _;

/// A fresh random UUID v4 in its lowercase hyphenated form.
pub(crate) fn v4() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(format_v4(bytes))
}

/// Sets the version (4) and variant (RFC 4122) bits of `bytes` and formats them.
fn format_v4(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = hooks_core::text::hex(&bytes);
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: [u8; 16], expect: &str) {
        assert_eq!(format_v4(bytes), expect);
    }

    #[test]
    fn version_and_variant_bits() {
        check([0; 16], "00000000-0000-4000-8000-000000000000");
        check([0xff; 16], "ffffffff-ffff-4fff-bfff-ffffffffffff");
        check(
            [
                0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc,
                0xde, 0xf0,
            ],
            "12345678-9abc-4ef0-9234-56789abcdef0",
        );
    }

    #[test]
    fn fresh_ids_differ() {
        let (a, b) = (v4().unwrap(), v4().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
    }
}
