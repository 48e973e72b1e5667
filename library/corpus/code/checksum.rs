//! Adler-32 and a streaming CRC-32 (IEEE), written out by hand.
//! Sample corpus file for the dpe-tui library.

const MOD_ADLER: u32 = 65_521;

/// Adler-32 as used by zlib.
pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD_ADLER;
        b %= MOD_ADLER;
    }
    (b << 16) | a
}

/// A table-driven CRC-32 that can be fed in pieces.
pub struct Crc32 {
    table: [u32; 256],
    state: u32,
}

impl Crc32 {
    pub fn new() -> Self {
        let mut table = [0u32; 256];
        for (i, slot) in table.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            }
            *slot = c;
        }
        Crc32 { table, state: 0xFFFF_FFFF }
    }

    pub fn update(&mut self, data: &[u8]) {
        for &byte in data {
            let idx = ((self.state ^ u32::from(byte)) & 0xFF) as usize;
            self.state = self.table[idx] ^ (self.state >> 8);
        }
    }

    pub fn finish(&self) -> u32 {
        self.state ^ 0xFFFF_FFFF
    }
}

fn main() {
    let text = b"The quick brown fox jumps over the lazy dog";
    println!("adler32 = {:08x}", adler32(text));
    let mut crc = Crc32::new();
    crc.update(&text[..10]);
    crc.update(&text[10..]);
    println!("crc32   = {:08x}", crc.finish()); // 414fa339
}
