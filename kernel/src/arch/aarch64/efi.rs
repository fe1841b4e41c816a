//! The image as a UEFI application: the EFI entry point that EDK2 (or
//! U-Boot's bootefi) calls when it starts the image as
//! `EFI/BOOT/BOOTAA64.EFI`, and what it hands the kernel.
//!
//! The image is a PE/COFF file as well as a Linux Image (Linux's EFI stub
//! layout): its first instruction is "MZ" as a harmless `ccmp`, offset
//! 0x3c points at the PE header in `.text.efihead` (below, right after
//! gometal's descriptor; the rest of the first page is zeros, the code
//! starts on the second), which the host's internal/bootimage writes (its
//! sizes change with the payload).
//! One section covers the whole image at virtual address = file offset,
//! with no relocations, so in memory the image is byte for byte the file
//! and this code runs wherever the firmware put it.
//!
//! Minimal, hand-written EFI table structs (not the `uefi` crate: this
//! code runs before the kernel is where it is linked, with the firmware's
//! identity map, so it must stay free of absolute addresses: no
//! `core::fmt`, no panics, no trait objects; every address it uses is
//! PC-relative or one the firmware gave). It finds the device tree
//! (DEVICE_TREE_GUID) and the ACPI 2.0 RSDP in the configuration table,
//! copies the image to a 2 MiB aligned block of memory in the lowest GiB
//! of RAM (there the kernel's window is 2 MiB blocks), records
//! the usable memory from the EFI memory map in the copy, exits boot
//! services, turns the MMU off and enters the copy's Image entry with the
//! device tree in x0, as a Linux loader would. Errors before that are one
//! line on the firmware's console, then a shutdown.

use core::ptr::addr_of;

/// What the EFI entry hands the kernel, in the kernel's own .data (of the
/// copy it enters). `magic` is HANDOFF_MAGIC when the kernel came in
/// through EFI.
#[repr(C)]
pub struct Handoff {
    magic: u64,
    /// The ACPI 2.0 RSDP's physical address (0: none).
    pub rsdp: u64,
    /// How many of `memory` are used.
    count: u64,
    /// Usable RAM [start, end) from the EFI memory map, merged, in order.
    memory: [[u64; 2]; MAX_RANGES],
}

const HANDOFF_MAGIC: u64 = u64::from_le_bytes(*b"GMEFIMAP");
const MAX_RANGES: usize = 64;
/// The room .text.efihead keeps for the PE header.
const PE_SPACE: u64 = 256;

/// entry.S reads `magic` (as `efi_handoff`): with it, x0 = 0 is no
/// device tree because the ACPI tables describe the machine.
#[link_section = ".data.boot"]
#[export_name = "efi_handoff"]
static mut HANDOFF: Handoff = Handoff { magic: 0, rsdp: 0, count: 0, memory: [[0; 2]; MAX_RANGES] };

impl Handoff {
    /// Usable RAM as the firmware's memory map described it.
    pub fn memory(&self) -> &[[u64; 2]] {
        &self.memory[..(self.count as usize).min(MAX_RANGES)]
    }
}

/// What the EFI entry left, when the kernel came in through it.
fn firmware_handoff() -> Option<&'static Handoff> {
    // SAFETY: HANDOFF is written only by the EFI entry, before the kernel
    // runs (in the copy it enters); read-only afterwards.
    let h = unsafe { &*addr_of!(HANDOFF) };
    (h.magic == HANDOFF_MAGIC).then_some(h)
}

/// Usable RAM from the UEFI memory map, when UEFI firmware started the
/// kernel (it replaces the device tree's /memory).
pub fn firmware_memory() -> Option<&'static [[u64; 2]]> {
    firmware_handoff().map(|h| h.memory())
}

/// The ACPI RSDP the UEFI firmware named, if any.
pub fn firmware_rsdp() -> Option<u64> {
    firmware_handoff().map(|h| h.rsdp).filter(|&a| a != 0)
}

// The PE header's place (the host fills it in), the first word holding
// the EFI entry's offset until then; and the jump into the copy.
core::arch::global_asm!(
    r#"
    .section .text.efihead, "ax"
    .balign 8
    .global efi_pe_header
efi_pe_header:
    .quad   efi_entry_offset
    .space  256 - 8

    .text
// efi_enter_image(base, dtb, size): cleans and invalidates the copy to
// the point of coherency, turns the MMU and caches off at the current EL
// (the code runs identity-mapped, so the next fetch is the same
// physical address) and jumps to the copy's first byte with x0 = dtb.
    .global efi_enter_image
efi_enter_image:
    msr     daifset, #0xf
    mov     x19, x0
    mov     x20, x1
    mrs     x3, ctr_el0
    ubfx    x3, x3, #16, #4             // DminLine: log2 words
    mov     x4, #4
    lsl     x4, x4, x3                  // line size in bytes
    sub     x5, x4, #1
    bic     x6, x0, x5
    add     x2, x0, x2
1:  dc      civac, x6
    add     x6, x6, x4
    cmp     x6, x2
    b.lo    1b
    dsb     sy
    mrs     x0, CurrentEL
    cmp     x0, #(2 << 2)
    b.eq    2f
    mrs     x0, sctlr_el1
    bic     x0, x0, #1                  // M
    bic     x0, x0, #(1 << 2)           // C
    bic     x0, x0, #(1 << 12)          // I
    msr     sctlr_el1, x0
    b       3f
2:  mrs     x0, sctlr_el2
    bic     x0, x0, #1
    bic     x0, x0, #(1 << 2)
    bic     x0, x0, #(1 << 12)
    msr     sctlr_el2, x0
3:  isb
    ic      iallu
    tlbi    vmalle1
    dsb     sy
    isb
    mov     x0, x20
    mov     x1, xzr
    mov     x2, xzr
    mov     x3, xzr
    br      x19
"#
);

extern "C" {
    static _head: u8;
    fn efi_enter_image(base: u64, dtb: u64, size: u64) -> !;
}

type Status = usize;
const EFI_SUCCESS: Status = 0;
const EFI_LOAD_ERROR: Status = 1 | (1 << 63);

#[repr(C)]
struct Guid([u8; 16]);

const fn guid(a: u32, b: u16, c: u16, d: [u8; 8]) -> Guid {
    let a = a.to_le_bytes();
    let b = b.to_le_bytes();
    let c = c.to_le_bytes();
    Guid([a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

const DEVICE_TREE_GUID: Guid = guid(0xb1b621d5, 0xf19c, 0x41a5, [0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0]);
const ACPI_20_GUID: Guid = guid(0x8868e871, 0xe4f1, 0x11d3, [0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81]);

#[repr(C)]
struct TableHeader {
    signature: u64,
    revision: u32,
    header_size: u32,
    crc32: u32,
    reserved: u32,
}

#[repr(C)]
struct SystemTable {
    hdr: TableHeader,
    firmware_vendor: usize,
    firmware_revision: u32,
    console_in_handle: usize,
    con_in: usize,
    console_out_handle: usize,
    con_out: *mut TextOutput,
    stderr_handle: usize,
    std_err: usize,
    runtime: *const RuntimeServices,
    boot: *const BootServices,
    table_entries: usize,
    config: *const ConfigTable,
}

#[repr(C)]
struct ConfigTable {
    guid: Guid,
    table: u64,
}

#[repr(C)]
struct TextOutput {
    reset: usize,
    output_string: unsafe extern "efiapi" fn(*mut TextOutput, *const u16) -> Status,
}

#[repr(C)]
struct RuntimeServices {
    hdr: TableHeader,
    unused: [usize; 10],
    reset_system: unsafe extern "efiapi" fn(u32, Status, usize, usize) -> !,
}

#[repr(C)]
struct BootServices {
    hdr: TableHeader,
    raise_tpl: usize,
    restore_tpl: usize,
    allocate_pages: unsafe extern "efiapi" fn(u32, u32, usize, *mut u64) -> Status,
    free_pages: usize,
    get_memory_map: unsafe extern "efiapi" fn(*mut usize, *mut u8, *mut usize, *mut usize, *mut u32) -> Status,
    allocate_pool: unsafe extern "efiapi" fn(u32, usize, *mut *mut u8) -> Status,
    unused: [usize; 20],
    exit_boot_services: unsafe extern "efiapi" fn(usize, usize) -> Status,
}

const ALLOCATE_ANY_PAGES: u32 = 0;
const ALLOCATE_MAX_ADDRESS: u32 = 1;
const LOADER_DATA: u32 = 2;
const RESET_SHUTDOWN: u32 = 2;
const MIB2: u64 = 2 << 20;
const GIB: u64 = 1 << 30;
/// Room for the memory map: EDK2's on QEMU has a few dozen descriptors.
const MAP_BYTES: usize = 16 << 10;

/// The Image header's image_size: what the image occupies, payload included.
fn image_size(base: *const u8) -> u64 {
    // SAFETY: the header is the image's first 64 bytes, loaded by the firmware.
    unsafe { core::ptr::read_unaligned(base.add(0x10) as *const u64) }
}

/// One line on the firmware's console (ASCII only).
fn say(st: &SystemTable, line: &str) {
    let mut buf = [0u16; 160];
    let mut n = 0;
    for b in "gometal: ".bytes().chain(line.bytes()).chain("\r\n".bytes()) {
        if n + 1 < buf.len() {
            buf[n] = b as u16;
            n += 1;
        }
    }
    if st.con_out.is_null() {
        return;
    }
    // SAFETY: ConOut is the firmware's protocol, valid until ExitBootServices;
    // buf is NUL-terminated UTF-16.
    unsafe { ((*st.con_out).output_string)(st.con_out, buf.as_ptr()) };
}

/// Says why the image cannot boot and turns the machine off (QEMU exits).
fn fail(st: &SystemTable, line: &str) -> Status {
    say(st, line);
    if !st.runtime.is_null() {
        // SAFETY: the firmware's runtime services, called before ExitBootServices.
        unsafe { ((*st.runtime).reset_system)(RESET_SHUTDOWN, EFI_LOAD_ERROR, 0, 0) };
    }
    EFI_LOAD_ERROR
}

/// Which EFI memory types are free RAM once boot services have exited:
/// loader code and data (this image, its copy), boot services code and
/// data, conventional memory.
fn usable(kind: u32) -> bool {
    matches!(kind, 1 | 2 | 3 | 4 | 7)
}

/// Walks a memory map: (type, start, end) of each descriptor.
fn descriptors(map: &[u8], stride: usize) -> impl Iterator<Item = (u32, u64, u64)> + '_ {
    let stride = stride.max(40);
    map.chunks_exact(stride).map(|d| {
        let word = |o: usize| u64::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3], d[o + 4], d[o + 5], d[o + 6], d[o + 7]]);
        let start = word(8);
        (word(0) as u32, start, start.wrapping_add(word(24).wrapping_mul(4096)))
    })
}

/// The EFI entry (the PE header's AddressOfEntryPoint).
///
/// # Safety
/// Called by the firmware only, with its image handle and system table.
#[no_mangle]
unsafe extern "efiapi" fn efi_main(handle: usize, st: *const SystemTable) -> Status {
    // SAFETY: the firmware passes a valid system table.
    let st = unsafe { &*st };
    // SAFETY: as above; the boot services are valid until ExitBootServices.
    let bs = unsafe { &*st.boot };
    let mut dtb = 0u64;
    let mut rsdp = 0u64;
    for i in 0..st.table_entries {
        // SAFETY: the configuration table has table_entries entries.
        let t = unsafe { &*st.config.add(i) };
        if t.guid.0 == DEVICE_TREE_GUID.0 {
            dtb = t.table;
        } else if t.guid.0 == ACPI_20_GUID.0 {
            rsdp = t.table;
        }
    }
    if dtb == 0 && rsdp == 0 {
        return fail(st, "the firmware gave neither a device tree nor ACPI tables: cannot find the machine's devices");
    }
    let base = addr_of!(_head);
    let size = image_size(base);
    // The memory map, to place the copy in the lowest GiB of RAM (the
    // early boot maps RAM below the kernel's GiB as device memory).
    let mut map_buf: *mut u8 = core::ptr::null_mut();
    // SAFETY: a boot service call with valid out-pointers.
    if unsafe { (bs.allocate_pool)(LOADER_DATA, MAP_BYTES, &mut map_buf) } != EFI_SUCCESS {
        return fail(st, "no memory for the EFI memory map");
    }
    // SAFETY: AllocatePool gave MAP_BYTES bytes.
    let map = unsafe { core::slice::from_raw_parts_mut(map_buf, MAP_BYTES) };
    let (mut key, mut stride, mut version) = (0usize, 0usize, 0u32);
    let mut len = MAP_BYTES;
    // SAFETY: the buffer holds len bytes; the other pointers are locals.
    if unsafe { (bs.get_memory_map)(&mut len, map.as_mut_ptr(), &mut key, &mut stride, &mut version) } != EFI_SUCCESS {
        return fail(st, "cannot read the EFI memory map");
    }
    let lowest = descriptors(&map[..len], stride).filter(|d| d.0 == 7).map(|d| d.1).min().unwrap_or(0);
    let pages = (size.div_ceil(4096) + MIB2 / 4096) as usize;
    let mut block = (lowest & !(GIB - 1)) + GIB - 1;
    // SAFETY: a boot service call with a valid out-pointer.
    if unsafe { (bs.allocate_pages)(ALLOCATE_MAX_ADDRESS, LOADER_DATA, pages, &mut block) } != EFI_SUCCESS {
        // SAFETY: as above.
        if unsafe { (bs.allocate_pages)(ALLOCATE_ANY_PAGES, LOADER_DATA, pages, &mut block) } != EFI_SUCCESS {
            return fail(st, "no memory for the kernel image");
        }
    }
    let copy = (block + MIB2 - 1) & !(MIB2 - 1);
    // SAFETY: [copy, copy+size) lies in the block just allocated
    // (size + 2 MiB bytes); the source is this image as loaded.
    unsafe { core::ptr::copy_nonoverlapping(base, copy as *mut u8, size as usize) };
    // The firmware wrote where it loaded the image into the PE header's
    // ImageBase (EDK2 does, relocations or not): the file has 0 there, and
    // the checksum covers it.
    // SAFETY: the copy's first page holds the header; offsets checked.
    unsafe {
        let pe = core::ptr::read_unaligned((copy + 0x3c) as *const u32) as u64;
        if pe + 24 + 32 <= 0x1000 {
            core::ptr::write_unaligned((copy + pe + 24 + 24) as *mut u64, 0);
        }
    }
    // The rest of the first page is zeros in the file; a loader that
    // copies only the headers (U-Boot's) may leave anything there.
    // SAFETY: the page lies in the copy.
    unsafe {
        let pe = core::ptr::read_unaligned((copy + 0x3c) as *const u32) as u64;
        if pe + PE_SPACE <= 0x1000 {
            core::ptr::write_bytes((copy + pe + PE_SPACE) as *mut u8, 0, (0x1000 - pe - PE_SPACE) as usize);
        }
    }
    if !code_intact(copy) {
        return fail(st, "the image is damaged (its code does not match its checksum): a truncated or corrupt file?");
    }
    // The handoff, in the copy: at the same offset from its start.
    let offset = addr_of!(HANDOFF) as u64 - base as u64;
    let handoff = (copy + offset) as *mut Handoff;
    for _ in 0..4 {
        len = MAP_BYTES;
        // SAFETY: as the first call.
        if unsafe { (bs.get_memory_map)(&mut len, map.as_mut_ptr(), &mut key, &mut stride, &mut version) } != EFI_SUCCESS {
            return fail(st, "cannot read the EFI memory map");
        }
        // SAFETY: the handoff lies in the copy, which is ours.
        let h = unsafe { &mut *handoff };
        record(h, &map[..len], stride, rsdp);
        // SAFETY: the image handle and the key of the map just read.
        if unsafe { (bs.exit_boot_services)(handle, key) } == EFI_SUCCESS {
            // SAFETY: the copy is a whole image; the MMU goes off on the way.
            unsafe { efi_enter_image(copy, dtb, size) }
        }
    }
    fail(st, "ExitBootServices keeps failing")
}

/// The check entry.S makes (FNV-1a over 64-bit words of [0x80,
/// checked_size), against the descriptor's sum), made here where a
/// failure can still be said on the firmware's console.
fn code_intact(image: u64) -> bool {
    let word = |off: u64| {
        // SAFETY: off lies in the image (checked_size is inside it).
        unsafe { core::ptr::read_unaligned((image + off) as *const u64) }
    };
    let (end, want) = (word(0x48), word(0x50));
    if want == 0 {
        return true;
    }
    if end < 0x80 || end > image_size(image as *const u8) {
        return false;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut off = 0x80;
    while off < end {
        h = (h ^ word(off)).wrapping_mul(0x100_0000_01b3);
        off += 8;
    }
    h == want
}

/// Fills the handoff from a memory map: the usable ranges, merged.
fn record(h: &mut Handoff, map: &[u8], stride: usize, rsdp: u64) {
    h.magic = HANDOFF_MAGIC;
    h.rsdp = rsdp;
    let mut n = 0usize;
    // The map is sorted by address on EDK2; insert in order regardless.
    for (kind, start, end) in descriptors(map, stride) {
        if !usable(kind) || end <= start {
            continue;
        }
        if n > 0 && h.memory[n - 1][1] == start {
            h.memory[n - 1][1] = end;
        } else if n < MAX_RANGES {
            let mut i = n;
            while i > 0 && h.memory[i - 1][0] > start {
                h.memory[i] = h.memory[i - 1];
                i -= 1;
            }
            h.memory[i] = [start, end];
            n += 1;
        }
    }
    h.count = n as u64;
}
