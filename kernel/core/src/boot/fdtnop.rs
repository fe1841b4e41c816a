//! Removing FDT_NOP tokens from a flattened device tree, in place, before
//! the `fdt` crate reads it. libfdt deletes a node or property by
//! overwriting it with NOP tokens, so trees a loader or QEMU has edited
//! (U-Boot's fix-ups, firmware overlays, QEMU given `-dtb`) carry them;
//! the `fdt` crate (0.1.5) skips them in some places but not all, and
//! then loses whole nodes (QEMU's virt tree passed back through `-dtb`:
//! `/cpus` not found, and the crate's `cpus()` panics). Compacting the
//! structure block once gives the crate a tree without them. No crate
//! does this for a no_std byte slice; libfdt's `fdt_pack` packs blocks,
//! it does not drop NOPs.

/// The flattened-device-tree header's magic.
const FDT_MAGIC: u32 = 0xd00d_feed;
const FDT_BEGIN_NODE: u32 = 1;
const FDT_END_NODE: u32 = 2;
const FDT_PROP: u32 = 3;
const FDT_NOP: u32 = 4;
const FDT_END: u32 = 9;

/// Why a tree's structure block could not be walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// Not a device tree, or a header pointing outside the blob.
    Header,
    /// A token that is none of the five, or one running past the block.
    Structure { offset: usize },
}

impl core::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        match self {
            LayoutError::Header => f.write_str("its header does not describe the blob"),
            LayoutError::Structure { offset } => write!(f, "its structure block is malformed at byte {offset}"),
        }
    }
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// The length of the token at `at` in `s` (the structure block).
fn token_len(s: &[u8], at: usize) -> Option<(u32, usize)> {
    let token = be32(s, at)?;
    let len = match token {
        FDT_BEGIN_NODE => {
            let name = s.get(at + 4..)?;
            4 + align4(name.iter().position(|&b| b == 0)? + 1)
        }
        FDT_PROP => 12 + align4(be32(s, at + 4)? as usize),
        FDT_END_NODE | FDT_NOP | FDT_END => 4,
        _ => return None,
    };
    (at + len <= s.len()).then_some((token, len))
}

/// Drops every NOP token from `blob`'s structure block, moving what
/// follows down and zeroing the freed tail; the header's structure size
/// shrinks to match. Returns how many NOP tokens there were.
pub fn strip_nops(blob: &mut [u8]) -> Result<usize, LayoutError> {
    if be32(blob, 0) != Some(FDT_MAGIC) {
        return Err(LayoutError::Header);
    }
    let off = be32(blob, 8).ok_or(LayoutError::Header)? as usize;
    let size = be32(blob, 36).ok_or(LayoutError::Header)? as usize;
    let end = off.checked_add(size).filter(|&e| e <= blob.len()).ok_or(LayoutError::Header)?;
    let s = &mut blob[off..end];
    let (mut read, mut write, mut nops) = (0, 0, 0);
    while read < s.len() {
        let (token, len) = token_len(s, read).ok_or(LayoutError::Structure { offset: off + read })?;
        if token == FDT_NOP {
            nops += 1;
        } else {
            s.copy_within(read..read + len, write);
            write += len;
        }
        read += len;
        if token == FDT_END {
            break;
        }
    }
    s[write..].fill(0);
    if nops > 0 {
        blob[36..40].copy_from_slice(&(write as u32).to_be_bytes());
    }
    Ok(nops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// A tree: header, then the structure block of `tokens`, then "reg\0" as strings.
    fn tree(tokens: &[&[u32]], names: &[(usize, &[u8])]) -> Vec<u8> {
        let mut s: Vec<u8> = Vec::new();
        for t in tokens {
            for w in *t {
                s.extend_from_slice(&w.to_be_bytes());
            }
        }
        for &(at, name) in names {
            s.splice(at..at, name.iter().copied());
        }
        let strings = b"reg\0";
        let mut b = Vec::new();
        for w in [FDT_MAGIC, (40 + s.len() + 4) as u32, 40, (40 + s.len()) as u32, 0, 17, 16, 0, 4, s.len() as u32] {
            b.extend_from_slice(&w.to_be_bytes());
        }
        b.extend_from_slice(&s);
        b.extend_from_slice(strings);
        b
    }

    #[test]
    fn nops_between_nodes_and_properties_go() {
        // root { NOP; cpus { reg = <1>; NOP } NOP } END, names padded to 4.
        let with = tree(
            &[&[FDT_BEGIN_NODE, 0], &[FDT_NOP], &[FDT_BEGIN_NODE], &[FDT_PROP, 4, 0, 1], &[FDT_NOP, FDT_END_NODE, FDT_NOP, FDT_END_NODE, FDT_END]],
            &[(16, b"cpus\0\0\0\0")],
        );
        let without = tree(&[&[FDT_BEGIN_NODE, 0], &[FDT_BEGIN_NODE], &[FDT_PROP, 4, 0, 1], &[FDT_END_NODE, FDT_END_NODE, FDT_END]], &[(12, b"cpus\0\0\0\0")]);
        let mut b = with.clone();
        assert_eq!(strip_nops(&mut b), Ok(3));
        let size = be32(&b, 36).unwrap() as usize;
        assert_eq!(size, be32(&without, 36).unwrap() as usize);
        assert_eq!(&b[40..40 + size], &without[40..40 + size]);
        assert!(b[40 + size..be32(&b, 12).unwrap() as usize].iter().all(|&x| x == 0), "the freed tail is zeroed");
        assert_eq!(&b[b.len() - 4..], b"reg\0", "the strings block does not move");
        let mut again = b.clone();
        assert_eq!(strip_nops(&mut again), Ok(0));
        assert_eq!(again, b);
    }

    #[test]
    fn bad_trees_are_refused_not_walked() {
        let good = tree(&[&[FDT_BEGIN_NODE, 0, FDT_END_NODE, FDT_END]], &[]);
        let mut b = good.clone();
        b[0] = 0;
        assert_eq!(strip_nops(&mut b), Err(LayoutError::Header));
        let mut b = good.clone();
        b[36..40].copy_from_slice(&0xffff_fff0u32.to_be_bytes());
        assert_eq!(strip_nops(&mut b), Err(LayoutError::Header), "a size past the blob");
        let mut b = good.clone();
        b[48..52].copy_from_slice(&7u32.to_be_bytes());
        assert_eq!(strip_nops(&mut b), Err(LayoutError::Structure { offset: 48 }), "an unknown token");
        let mut b = tree(&[&[FDT_BEGIN_NODE, 0, FDT_PROP, 0xffff, 0, FDT_END]], &[]);
        assert!(matches!(strip_nops(&mut b), Err(LayoutError::Structure { .. })), "a property longer than the block");
        assert_eq!(strip_nops(&mut []), Err(LayoutError::Header));
    }
}
