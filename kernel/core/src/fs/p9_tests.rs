//! Host tests of the 9P2000.L encoder and decoder (p9.rs), against bytes
//! laid out by hand from the protocol's field list.

use super::*;

#[test]
fn tversion_is_laid_out_as_the_protocol_says() {
    let m = version(8192);
    let mut want = vec![21, 0, 0, 0, TVERSION, 0, 0, 0, 0x20, 0, 0, 8, 0];
    want.extend_from_slice(b"9P2000.L");
    assert_eq!(m, want);
}

#[test]
fn the_transport_stamps_and_reads_tags() {
    let mut m = walk(1, 2, &[b"a"]);
    set_tag(&mut m, 0x1234);
    assert_eq!(tag_of(&m), Some(0x1234));
    assert_eq!(&m[5..7], &[0x34, 0x12]);
    assert_eq!(tag_of(&[1, 2, 3]), None);
    // A reply with any tag parses: matching it to its request is the
    // transport's business.
    let mut r = reply(TWALK + 1, &[0, 0]);
    set_tag(&mut r, 7);
    assert!(Reply::parse(&r, TWALK + 1).is_ok());
}

#[test]
fn twalk_lists_its_names() {
    let m = walk(1, 2, &[b"a", b"bc"]);
    assert_eq!(&m[..4], &(m.len() as u32).to_le_bytes());
    assert_eq!(m[4], TWALK);
    assert_eq!(&m[7..15], &[1, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(&m[15..], &[2, 0, 1, 0, b'a', 2, 0, b'b', b'c']);
}

fn reply(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut m = ((HEADER + body.len()) as u32).to_le_bytes().to_vec();
    m.push(kind);
    m.extend_from_slice(&TAG.to_le_bytes());
    m.extend_from_slice(body);
    m
}

#[test]
fn rlerror_gives_the_errno_and_bad_replies_are_malformed() {
    assert_eq!(Reply::parse(&reply(RLERROR, &2u32.to_le_bytes()), TWALK + 1).err(), Some(ReplyError::Errno(2)));
    assert_eq!(Reply::parse(&reply(TREAD + 1, &[]), TWALK + 1).err(), Some(ReplyError::Malformed));
    assert_eq!(Reply::parse(&[1, 2, 3], TWALK + 1).err(), Some(ReplyError::Malformed));
    let mut long = reply(TWALK + 1, &[0, 0]);
    long[0] = 200; // says more bytes than there are
    assert_eq!(Reply::parse(&long, TWALK + 1).err(), Some(ReplyError::Malformed));
    // A read past the end of the reply is Malformed, not a panic.
    let short = reply(TWALK + 1, &[5, 0]);
    let mut r = Reply::parse(&short, TWALK + 1).unwrap();
    assert_eq!(r.u16(), Ok(5));
    assert_eq!(r.qid().err(), Some(ReplyError::Malformed));
}

#[test]
fn rgetattr_fields() {
    let mut body = Vec::new();
    body.extend_from_slice(&0x7ffu64.to_le_bytes());
    body.extend_from_slice(&[0; 13]);
    body.extend_from_slice(&0o100644u32.to_le_bytes());
    body.extend_from_slice(&1000u32.to_le_bytes());
    body.extend_from_slice(&100u32.to_le_bytes());
    body.extend_from_slice(&2u64.to_le_bytes());
    body.extend_from_slice(&[0; 8]);
    body.extend_from_slice(&12345u64.to_le_bytes());
    body.extend_from_slice(&[0; 8]);
    body.extend_from_slice(&32u64.to_le_bytes());
    for t in [5u64, 6, 7, 9, 11, 13] {
        body.extend_from_slice(&t.to_le_bytes());
    }
    body.extend_from_slice(&[0; 16 + 16]);
    let a = parse_getattr(&reply(TGETATTR + 1, &body)).unwrap();
    let want = Attr {
        ino: 0,
        mode: 0o100644,
        uid: 1000,
        gid: 100,
        nlink: 2,
        size: 12345,
        blocks: 32,
        atime_ns: 5_000_000_006,
        mtime_ns: 7_000_000_009,
        ctime_ns: 11_000_000_013,
    };
    assert_eq!(a, want);
}

#[test]
fn rreaddir_entries() {
    let mut data = Vec::new();
    for (name, off) in [(&b"x"[..], 1u64), (&b"yz"[..], 2)] {
        data.extend_from_slice(&[0x80, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
        data.extend_from_slice(&off.to_le_bytes());
        data.push(4);
        data.extend_from_slice(&(name.len() as u16).to_le_bytes());
        data.extend_from_slice(name);
    }
    let mut body = (data.len() as u32).to_le_bytes().to_vec();
    body.extend_from_slice(&data);
    let msg = reply(TREADDIR + 1, &body);
    let e = parse_readdir(&msg).unwrap();
    assert_eq!(e.len(), 2);
    assert_eq!((e[0].name, e[0].offset, e[0].qid.kind, e[0].qid.path), (&b"x"[..], 1, 0x80, 9));
    assert_eq!((e[1].name, e[1].offset), (&b"yz"[..], 2));
    // A truncated entry is Malformed.
    let mut cut = body.clone();
    cut[0] -= 1;
    cut.pop();
    assert_eq!(parse_readdir(&reply(TREADDIR + 1, &cut)).err(), Some(ReplyError::Malformed));
}

#[test]
fn mount_options() {
    let spec = |tag: &[u8], guest: &[u8], read_only, cached| MountSpec { tag: tag.to_vec(), guest: guest.to_vec(), read_only, cached };
    assert_eq!(parse_mount(b"gm0:/data"), Some(spec(b"gm0", b"/data", false, false)));
    assert_eq!(parse_mount(b"gm1:/a/b:ro"), Some(spec(b"gm1", b"/a/b", true, false)));
    assert_eq!(parse_mount(b"gm2:/m:ro,cache=loose"), Some(spec(b"gm2", b"/m", true, true)));
    assert_eq!(parse_mount(b"gm2:/m:cache=loose,ro"), Some(spec(b"gm2", b"/m", true, true)));
    assert_eq!(parse_mount(b"gm2:/m:cache=loose"), None, "a cache only for a read-only share");
    assert_eq!(parse_mount(b"gm2:/m:ro,cache=none"), None);
    assert_eq!(parse_mount(b"gm2:/m:ro,"), None);
    assert_eq!(parse_mount(b"gm2:/m:ro:ro"), None);
    assert_eq!(parse_mount(b"gm0:data"), None);
    assert_eq!(parse_mount(b":/data"), None);
    assert_eq!(parse_mount(b"gm0"), None);
    assert_eq!(parse_mount(b"gm0:/d:rw"), None);
}

#[test]
fn statfs_reply() {
    let mut body = Vec::new();
    body.extend_from_slice(&0xEF53u32.to_le_bytes());
    body.extend_from_slice(&65536u32.to_le_bytes());
    for v in [100u64, 40, 30, 5000, 4000, 0x1234] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    body.extend_from_slice(&255u32.to_le_bytes());
    let s = parse_statfs(&reply(TSTATFS + 1, &body)).unwrap();
    assert_eq!(
        s,
        FsStat { kind: 0xEF53, bsize: 65536, blocks: 100, bfree: 40, bavail: 30, files: 5000, ffree: 4000, fsid: 0x1234, namelen: 255 }
    );
    body.pop();
    assert_eq!(parse_statfs(&reply(TSTATFS + 1, &body)).err(), Some(ReplyError::Malformed));
}
