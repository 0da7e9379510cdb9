//! Certificate fingerprints: the SHA-256 of a certificate's DER bytes, which `cohort-server`
//! prints for a self-signed certificate and clients pin (`--fingerprint`). Shown as 64
//! lowercase hex digits; read with or without `:` separators, in either case.

/// The SHA-256 of `der`, as 64 lowercase hex digits.
pub fn sha256_fingerprint(der: &[u8]) -> String {
    hex::encode(sha256(der))
}

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

/// A fingerprint as typed: 64 hex digits, `:` separators allowed.
pub fn parse_fingerprint(text: &str) -> Option<[u8; 32]> {
    let digits: String = text.chars().filter(|c| *c != ':').collect();
    let bytes = hex::decode(digits.trim()).ok()?;
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_is_sha256_and_reads_back_with_separators() {
        let f = sha256_fingerprint(b"abc");
        assert_eq!(
            f,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let colons: Vec<String> = f
            .as_bytes()
            .chunks(2)
            .map(|c| String::from_utf8(c.to_vec()).unwrap().to_uppercase())
            .collect();
        assert_eq!(parse_fingerprint(&colons.join(":")), Some(sha256(b"abc")));
        assert_eq!(parse_fingerprint("abc"), None);
    }
}
