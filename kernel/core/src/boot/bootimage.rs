//! gometal's image descriptor: 64 bytes right after the 64-byte Linux
//! Image header (offset 0x40, before the first instruction at 0x80) that
//! say what a one-file image carries besides the kernel — the program's
//! command line and its initramfs, the "payload" — and the checksums that
//! tell a damaged file from a good one. The host side
//! (internal/bootimage) writes it; the kernel reads it at boot
//! (boot/image.rs) instead of asking the loader for an initrd.
//!
//! ```text
//! 0x40 "GOMETAL\0"
//! 0x48 checked_size     the code checksum covers [0x80, checked_size)
//! 0x50 code_sum         FNV-1a over that range (0: not stamped)
//! 0x58 payload_offset   from the image's first byte, page aligned (0: none)
//! 0x60 cmdline_len      the payload starts with the command line,
//! 0x68 initramfs_offset then, from the payload's start, the initramfs
//! 0x70 initramfs_len
//! 0x78 payload_sum      FNV-1a over [payload, initramfs end)
//! ```
//! The payload lies after the kernel's memory (its .bss included), inside
//! the header's image_size, so a loader that moves the image (U-Boot's
//! booti) moves the payload with it, and the kernel's .bss never covers it.

/// Where the descriptor starts in the image, and its length.
pub const DESCRIPTOR_OFFSET: usize = 0x40;
pub const DESCRIPTOR_LEN: usize = 0x40;
/// The Image header's image_size field (little endian u64).
pub const IMAGE_SIZE_OFFSET: usize = 0x10;
/// The first instruction after the header and descriptor.
pub const CODE_START: usize = 0x80;

const MAGIC: &[u8; 8] = b"GOMETAL\0";
const PAGE: u64 = 4096;

/// FNV-1a over little-endian 64-bit words (a short tail is zero-padded):
/// cheap enough for the boot code to check the whole image, and enough to
/// tell a truncated or corrupted file (it is not a defence against a
/// crafted one: whoever can write the image can write its checksum).
pub fn checksum(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in data.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h ^= u64::from_le_bytes(word);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The descriptor's fields, as stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    pub checked_size: u64,
    pub code_sum: u64,
    pub payload_offset: u64,
    pub cmdline_len: u64,
    pub initramfs_offset: u64,
    pub initramfs_len: u64,
    pub payload_sum: u64,
}

/// Where the payload's parts are, relative to the image's first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PayloadLayout {
    pub cmdline: (u64, u64),
    pub initramfs: (u64, u64),
    /// The range payload_sum covers: [start, end).
    pub checked: (u64, u64),
}

/// What is wrong with a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorError {
    /// No "GOMETAL" magic: not a gometal image (or a damaged one).
    NoMagic,
    /// The payload's parts do not fit inside the image or overlap the kernel.
    BadLayout,
}

fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

impl Descriptor {
    /// Reads the descriptor from its 64 bytes.
    pub fn parse(bytes: &[u8; DESCRIPTOR_LEN]) -> Result<Descriptor, DescriptorError> {
        if &bytes[..8] != MAGIC {
            return Err(DescriptorError::NoMagic);
        }
        Ok(Descriptor {
            checked_size: word(bytes, 0x08),
            code_sum: word(bytes, 0x10),
            payload_offset: word(bytes, 0x18),
            cmdline_len: word(bytes, 0x20),
            initramfs_offset: word(bytes, 0x28),
            initramfs_len: word(bytes, 0x30),
            payload_sum: word(bytes, 0x38),
        })
    }

    /// The descriptor as stored.
    pub fn encode(&self) -> [u8; DESCRIPTOR_LEN] {
        let mut out = [0u8; DESCRIPTOR_LEN];
        out[..8].copy_from_slice(MAGIC);
        let fields = [
            self.checked_size,
            self.code_sum,
            self.payload_offset,
            self.cmdline_len,
            self.initramfs_offset,
            self.initramfs_len,
            self.payload_sum,
        ];
        for (i, f) in fields.iter().enumerate() {
            out[8 + 8 * i..16 + 8 * i].copy_from_slice(&f.to_le_bytes());
        }
        out
    }

    /// Where the payload is, checked against the kernel's own size
    /// (`kernel_size`: the payload must start after its .bss) and the
    /// header's `image_size` (it must end inside); None without a payload.
    pub fn payload(&self, kernel_size: u64, image_size: u64) -> Result<Option<PayloadLayout>, DescriptorError> {
        if self.payload_offset == 0 {
            return Ok(None);
        }
        let start = self.payload_offset;
        let bad = DescriptorError::BadLayout;
        if start < kernel_size || !start.is_multiple_of(PAGE) {
            return Err(bad);
        }
        let cmdline_end = start.checked_add(self.cmdline_len).ok_or(bad)?;
        let initramfs_start = start.checked_add(self.initramfs_offset).ok_or(bad)?;
        let end = initramfs_start.checked_add(self.initramfs_len).ok_or(bad)?;
        if initramfs_start < cmdline_end || end > image_size {
            return Err(bad);
        }
        Ok(Some(PayloadLayout {
            cmdline: (start, self.cmdline_len),
            initramfs: (initramfs_start, self.initramfs_len),
            checked: (start, end),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_known_values() {
        // The same vectors are checked by internal/bootimage's Go tests.
        assert_eq!(checksum(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(checksum(b"gometal!"), 0xfb75_1f2e_d9be_9426);
        assert_eq!(checksum(b"gometal"), checksum(b"gometal\0"));
    }

    fn sample() -> Descriptor {
        Descriptor {
            checked_size: 0x9000,
            code_sum: 7,
            payload_offset: 0x40_0000,
            cmdline_len: 12,
            initramfs_offset: 0x1000,
            initramfs_len: 0x2345,
            payload_sum: 9,
        }
    }

    #[test]
    fn round_trip() {
        let d = sample();
        assert_eq!(Descriptor::parse(&d.encode()), Ok(d));
        let mut bytes = d.encode();
        bytes[0] = b'X';
        assert_eq!(Descriptor::parse(&bytes), Err(DescriptorError::NoMagic));
    }

    #[test]
    fn payload_layout() {
        let d = sample();
        let p = d.payload(0x30_0000, 0x40_3345).unwrap().unwrap();
        assert_eq!(p.cmdline, (0x40_0000, 12));
        assert_eq!(p.initramfs, (0x40_1000, 0x2345));
        assert_eq!(p.checked, (0x40_0000, 0x40_3345));
        assert_eq!(Descriptor { payload_offset: 0, ..d }.payload(0x30_0000, 0x40_3345), Ok(None));
    }

    #[test]
    fn payload_must_fit() {
        let d = sample();
        let bad = Err(DescriptorError::BadLayout);
        assert_eq!(d.payload(0x50_0000, 0x60_0000), bad, "inside the kernel's .bss");
        assert_eq!(d.payload(0x30_0000, 0x40_3000), bad, "past image_size");
        assert_eq!(Descriptor { payload_offset: 0x40_0010, ..d }.payload(0x30_0000, 0x50_0000), bad, "unaligned");
        assert_eq!(Descriptor { initramfs_offset: 4, ..d }.payload(0x30_0000, 0x50_0000), bad, "overlaps the command line");
        assert_eq!(Descriptor { initramfs_len: u64::MAX, ..d }.payload(0x30_0000, u64::MAX), bad, "overflow");
    }
}
