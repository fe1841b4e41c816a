//! Reader for the initramfs: a cpio "newc" archive (magic 070701, or 070702
//! with checksums, which we do not verify) as written by Linux's
//! gen_init_cpio, `cpio -H newc` and Go's archive writers. Each entry is a
//! 110-byte ASCII-hex header, the NUL-terminated name padded to 4 bytes, then
//! the data padded to 4 bytes; the archive ends at "TRAILER!!!". Entries
//! borrow from the archive, so nothing is copied at boot.

use alloc::vec::Vec;

const HEADER_LEN: usize = 110;
const TRAILER: &[u8] = b"TRAILER!!!";

/// File type bits of `mode` (S_IFMT and friends).
pub const S_IFMT: u32 = 0o170000;
pub const S_IFDIR: u32 = 0o040000;
pub const S_IFREG: u32 = 0o100000;
pub const S_IFLNK: u32 = 0o120000;

pub fn is_dir(mode: u32) -> bool {
    mode & S_IFMT == S_IFDIR
}

pub fn is_regular(mode: u32) -> bool {
    mode & S_IFMT == S_IFREG
}

pub fn is_symlink(mode: u32) -> bool {
    mode & S_IFMT == S_IFLNK
}

/// One archive member. For a symlink, `data` is the link target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// As stored: usually relative ("init", "./etc/x"); see `normalize_path`.
    pub name: &'a [u8],
    pub mode: u32,
    pub data: &'a [u8],
    pub mtime: u32,
    pub ino: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpioError {
    /// The header does not start with 070701 or 070702.
    BadMagic { offset: usize },
    /// A header field is not 8 hex digits.
    BadHeader { offset: usize },
    /// The archive ends inside an entry (or before the trailer).
    Truncated { offset: usize },
}

/// Iterates over the entries of `archive`, stopping after the trailer.
pub fn entries(archive: &[u8]) -> Entries<'_> {
    Entries {
        archive,
        offset: 0,
        done: false,
    }
}

pub struct Entries<'a> {
    archive: &'a [u8],
    offset: usize,
    done: bool,
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<Entry<'a>, CpioError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match read_entry(self.archive, self.offset) {
            Ok((entry, _)) if entry.name == TRAILER => {
                self.done = true;
                None
            }
            Ok((entry, next)) => {
                self.offset = next;
                Some(Ok(entry))
            }
            Err(e) => {
                // After an error the position is meaningless: stop for good.
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

fn hex_field(header: &[u8], index: usize, offset: usize) -> Result<u32, CpioError> {
    let start = 6 + index * 8;
    header[start..start + 8].iter().try_fold(0u32, |acc, &b| {
        let d = (b as char)
            .to_digit(16)
            .ok_or(CpioError::BadHeader { offset })?;
        Ok(acc << 4 | d)
    })
}

/// Reads the entry at `offset`; returns it and the offset of the next one.
fn read_entry(archive: &[u8], offset: usize) -> Result<(Entry<'_>, usize), CpioError> {
    let truncated = CpioError::Truncated { offset };
    let header = archive.get(offset..offset + HEADER_LEN).ok_or(truncated)?;
    if &header[..6] != b"070701" && &header[..6] != b"070702" {
        return Err(CpioError::BadMagic { offset });
    }
    let field = |i| hex_field(header, i, offset);
    let (ino, mode, mtime) = (field(0)?, field(1)?, field(5)?);
    let filesize = field(6)? as usize;
    let namesize = field(11)? as usize;
    if namesize == 0 {
        return Err(CpioError::BadHeader { offset });
    }
    let name_start = offset + HEADER_LEN;
    let name_end = name_start.checked_add(namesize).ok_or(truncated)?;
    let name_with_nul = archive.get(name_start..name_end).ok_or(truncated)?;
    // namesize counts the NUL; be lenient if a writer left it out.
    let name = match name_with_nul.iter().position(|&b| b == 0) {
        Some(nul) => &name_with_nul[..nul],
        None => name_with_nul,
    };
    let data_start = align4(name_end);
    let data_end = data_start.checked_add(filesize).ok_or(truncated)?;
    let data = archive.get(data_start..data_end).ok_or(truncated)?;
    Ok((
        Entry {
            name,
            mode,
            data,
            mtime,
            ino,
        },
        align4(data_end),
    ))
}

/// Makes an absolute, clean path: a leading "/", no "." or empty components,
/// ".." removes the previous component but never climbs above the root.
pub fn normalize_path(p: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = Vec::new();
    for comp in p.split(|&b| b == b'/') {
        match comp {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let mut out = Vec::with_capacity(p.len() + 1);
    for c in &parts {
        out.push(b'/');
        out.extend_from_slice(c);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes one newc entry the way gen_init_cpio does.
    fn push_entry(out: &mut Vec<u8>, name: &[u8], mode: u32, data: &[u8], ino: u32) {
        let fields = [
            ino,
            mode,
            0,
            0,
            1,
            1_700_000_000,
            data.len() as u32,
            0,
            0,
            0,
            0,
            name.len() as u32 + 1,
            0,
        ];
        out.extend_from_slice(b"070701");
        for f in fields {
            out.extend_from_slice(format!("{f:08X}").as_bytes());
        }
        out.extend_from_slice(name);
        out.push(0);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        out.extend_from_slice(data);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
    }

    fn sample() -> Vec<u8> {
        let mut a = Vec::new();
        push_entry(&mut a, b".", S_IFDIR | 0o755, b"", 1);
        push_entry(&mut a, b"init", S_IFREG | 0o755, b"\x7fELF12345", 2);
        push_entry(&mut a, b"etc/link", S_IFLNK | 0o777, b"/init", 3);
        push_entry(&mut a, b"empty", S_IFREG | 0o644, b"", 4);
        push_entry(&mut a, TRAILER, 0, b"", 0);
        a
    }

    #[test]
    fn reads_all_entries() {
        let a = sample();
        let es: Vec<Entry> = entries(&a).map(|e| e.unwrap()).collect();
        assert_eq!(es.len(), 4);
        assert!(is_dir(es[0].mode));
        assert_eq!(es[1].name, b"init");
        assert_eq!(es[1].data, b"\x7fELF12345");
        assert!(is_regular(es[1].mode) && !is_dir(es[1].mode));
        assert_eq!(es[1].mode & 0o7777, 0o755);
        assert_eq!((es[1].ino, es[1].mtime), (2, 1_700_000_000));
        assert!(is_symlink(es[2].mode));
        assert_eq!(es[2].data, b"/init");
        assert_eq!(es[3].data, b"");
    }

    #[test]
    fn stops_at_trailer_and_ignores_padding_after() {
        let mut a = sample();
        a.extend_from_slice(&[0u8; 512]);
        assert_eq!(entries(&a).count(), 4);
    }

    #[test]
    fn crc_variant_accepted() {
        let mut a = sample();
        a[5] = b'2';
        assert!(entries(&a).next().unwrap().is_ok());
    }

    #[test]
    fn errors() {
        let a = sample();
        let mut bad = a.clone();
        bad[0] = b'9';
        assert_eq!(
            entries(&bad).next(),
            Some(Err(CpioError::BadMagic { offset: 0 }))
        );
        let mut bad = a.clone();
        bad[6] = b'g';
        assert_eq!(
            entries(&bad).next(),
            Some(Err(CpioError::BadHeader { offset: 0 }))
        );
        // Cut inside the second entry's data: first is fine, then an error, then the end.
        // Entry "." takes 112 bytes; "init"'s data is at 228..237.
        let cut = &a[..232];
        let got: Vec<_> = entries(cut).collect();
        assert_eq!(got.len(), 2);
        assert!(got[0].is_ok());
        assert!(matches!(got[1], Err(CpioError::Truncated { .. })));
        // No trailer at all: the end of input is reported as truncation.
        let mut no_trailer = Vec::new();
        push_entry(&mut no_trailer, b"x", S_IFREG, b"abc", 1);
        let got: Vec<_> = entries(&no_trailer).collect();
        assert!(got[0].is_ok() && got[1].is_err() && got.len() == 2);
        assert_eq!(
            entries(b"").next(),
            Some(Err(CpioError::Truncated { offset: 0 }))
        );
    }

    #[test]
    fn normalizes_paths() {
        let n = |p: &[u8]| normalize_path(p);
        assert_eq!(n(b"./init"), b"/init");
        assert_eq!(n(b"a//b/../c"), b"/a/c");
        assert_eq!(n(b""), b"/");
        assert_eq!(n(b"."), b"/");
        assert_eq!(n(b"/"), b"/");
        assert_eq!(n(b"../../x"), b"/x");
        assert_eq!(n(b"/a/b/c/../../.."), b"/");
        assert_eq!(n(b"/usr/lib/"), b"/usr/lib");
        assert_eq!(n(b"a/./b/."), b"/a/b");
    }
}
