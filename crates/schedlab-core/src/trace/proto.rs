//! A minimal protocol-buffers writer (proto2 wire format: varints, length-delimited fields,
//! 64-bit fixed), enough to write a Perfetto trace without code generation. Field numbers are the
//! caller's (see [`super::perfetto`], which cites the `.proto` files they come from).
//!
//! Wire format (protobuf encoding guide): a field is a key `(number << 3) | wire_type` as a
//! varint, then its value: wire type 0 a varint (int32/int64 as their two's complement, 10 bytes
//! for a negative number; uint32/uint64/bool/enum as they are), 1 eight little-endian bytes
//! (double, fixed64), 2 a varint length then that many bytes (string, bytes, embedded message).

/// Wire types.
pub const VARINT: u32 = 0;
pub const FIXED64: u32 = 1;
pub const LEN: u32 = 2;

/// A message being written: fields are appended in the order called.
#[derive(Default, Debug, Clone)]
pub struct Msg {
    pub buf: Vec<u8>,
}

/// Appends `v` as a base-128 varint.
pub fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

impl Msg {
    pub fn new() -> Msg {
        Msg::default()
    }

    fn key(&mut self, field: u32, wire: u32) {
        put_varint(&mut self.buf, u64::from(field << 3 | wire));
    }

    /// uint32, uint64, enum.
    pub fn uint(&mut self, field: u32, v: u64) -> &mut Self {
        self.key(field, VARINT);
        put_varint(&mut self.buf, v);
        self
    }

    /// int32, int64 (not zig-zag: a negative number takes ten bytes, as protobuf encodes it).
    pub fn int(&mut self, field: u32, v: i64) -> &mut Self {
        self.uint(field, v as u64)
    }

    pub fn bool(&mut self, field: u32, v: bool) -> &mut Self {
        self.uint(field, u64::from(v))
    }

    pub fn double(&mut self, field: u32, v: f64) -> &mut Self {
        self.key(field, FIXED64);
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn bytes(&mut self, field: u32, v: &[u8]) -> &mut Self {
        self.key(field, LEN);
        put_varint(&mut self.buf, v.len() as u64);
        self.buf.extend_from_slice(v);
        self
    }

    pub fn string(&mut self, field: u32, v: &str) -> &mut Self {
        self.bytes(field, v.as_bytes())
    }

    /// An embedded message.
    pub fn msg(&mut self, field: u32, m: &Msg) -> &mut Self {
        self.bytes(field, &m.buf)
    }

    /// An embedded message built by `f`.
    pub fn with(&mut self, field: u32, f: impl FnOnce(&mut Msg)) -> &mut Self {
        let mut m = Msg::new();
        f(&mut m);
        self.msg(field, &m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_as_the_encoding_guide_shows() {
        // The guide's examples: field 1 = 150 is 08 96 01; field 2 = "testing" is 12 07 ...
        let mut m = Msg::new();
        m.uint(1, 150).string(2, "testing");
        assert_eq!(
            m.buf,
            [0x08, 0x96, 0x01, 0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']
        );
        let mut n = Msg::new();
        n.int(1, -1);
        assert_eq!(n.buf.len(), 11, "a negative int32 is ten bytes of varint");
        let mut d = Msg::new();
        d.double(1, 1.0);
        assert_eq!(d.buf[0], 0x09);
    }
}
