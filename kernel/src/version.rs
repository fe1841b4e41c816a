//! The kernel's version as an ELF note (owner "gometal", type 1), so that
//! the host tool (`gometal version`) can tell which kernel an image is
//! without booting it. Next to it the linker writes the GNU build-id note
//! (`--build-id=sha1`, a hash of the image), which says which build it is.
//! The linker script keeps both in the read-only data.

/// The crate version, as the note's descriptor.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Descriptor bytes: notes pad their descriptor to 4 bytes.
const DESC_LEN: usize = (VERSION.len() + 3) & !3;

/// An ELF note with an 8-byte owner name ("gometal" and its NUL).
#[repr(C, align(4))]
struct Note {
    namesz: u32,
    descsz: u32,
    kind: u32,
    name: [u8; 8],
    desc: [u8; DESC_LEN],
}

/// NT_GOMETAL_VERSION: the descriptor is the kernel's version string.
const NT_GOMETAL_VERSION: u32 = 1;

const fn padded<const N: usize>(s: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut i = 0;
    while i < s.len() {
        out[i] = s[i];
        i += 1;
    }
    out
}

#[used]
#[link_section = ".note.gometal"]
static VERSION_NOTE: Note = Note {
    namesz: 8,
    descsz: VERSION.len() as u32,
    kind: NT_GOMETAL_VERSION,
    name: *b"gometal\0",
    desc: padded(VERSION.as_bytes()),
};
