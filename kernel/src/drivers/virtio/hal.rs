//! The memory services the `virtio-drivers` crate asks of its host kernel:
//! DMA pages for virtqueues from the frame allocator, and physical
//! addresses of buffers through the linear map (every kernel object lives
//! in it, and the MMU is identity-free for devices: QEMU sees physical RAM).

use crate::memlayout::{phys_to_virt, virt_to_phys, PAGE_SIZE};
use crate::mm::frames;
use core::ptr::NonNull;
use virtio_drivers::{BufferDirection, Hal, PhysAddr};

pub struct KernelHal;

// SAFETY: dma_alloc hands out zeroed, physically contiguous frames owned by
// nobody else until dma_dealloc returns them; share returns the physical
// address of the very memory the buffer occupies (the linear map is a
// constant offset), and QEMU's DMA is cache-coherent, so no copies are needed.
unsafe impl Hal for KernelHal {
    fn dma_alloc(pages: usize, _direction: BufferDirection) -> (PhysAddr, NonNull<u8>) {
        let Some(pa) = frames::alloc_contiguous(pages) else {
            panic!("virtio: no memory for {pages} DMA pages at boot");
        };
        let va = phys_to_virt(pa) as *mut u8;
        // SAFETY: the frames were just allocated for us and are mapped.
        unsafe { core::ptr::write_bytes(va, 0, pages * PAGE_SIZE) };
        (pa, NonNull::new(va).expect("linear map address is not null"))
    }

    unsafe fn dma_dealloc(paddr: PhysAddr, _vaddr: NonNull<u8>, pages: usize) -> i32 {
        frames::free_contiguous(paddr, pages);
        0
    }

    unsafe fn mmio_phys_to_virt(paddr: PhysAddr, _size: usize) -> NonNull<u8> {
        // A PCI BAR above the linear map was mapped before its transport
        // was made (drivers/virtio/pci.rs), or the function was skipped.
        let va = crate::arch::device_virt(paddr).unwrap_or_else(|| phys_to_virt(paddr));
        NonNull::new(va as *mut u8).expect("a kernel address is not null")
    }

    unsafe fn share(buffer: NonNull<[u8]>, _direction: BufferDirection) -> PhysAddr {
        virt_to_phys(buffer.as_ptr() as *mut u8 as u64)
    }

    unsafe fn unshare(_paddr: PhysAddr, _buffer: NonNull<[u8]>, _direction: BufferDirection) {}
}
