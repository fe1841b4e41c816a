//! What a Linux root file system gives a program running as root, added at
//! boot unless the program brought its own: `/etc/passwd` and `/etc/group`
//! with root (so `user.Current()` and `user.LookupId("0")` work without
//! cgo), `/etc/hostname` (uname's node name) and root's home, `/root`.

use super::inode::Inode;
use super::tree::{child, ensure_dir, replace};
use alloc::sync::Arc;

const FILES: [(&[u8], &[u8]); 3] = [
    (b"passwd", b"root:x:0:0:root:/root:/bin/sh\n"),
    (b"group", b"root:x:0:\n"),
    (b"hostname", b"gometal\n"),
];

/// Adds the files (tree.rs calls it after unpacking the initramfs).
pub fn add(root: &Arc<Inode>) {
    let etc = ensure_dir(root, b"etc");
    for (name, text) in FILES {
        if child(&etc, name).is_none() {
            replace(&etc, name, Inode::new_file(0o644, text, 0));
        }
    }
    if child(root, b"root").is_none() {
        replace(root, b"root", Inode::new_dir(0o700, 0));
    }
}
