//! What the rest of the kernel asks of the console: a port's queued input,
//! and writes that return once the device has taken the bytes.

use super::{data_queues, CONSOLE, INPUT_LIMIT, OUTPUT_WAITERS};

/// What a read of `port` finds now.
pub enum Input {
    Data(usize),
    EndOfFile,
    Empty,
}

/// Takes up to `buf.len()` queued bytes of `port`.
pub fn take_input(port: usize, buf: &mut [u8]) -> Input {
    let mut guard = CONSOLE.lock();
    let Some(c) = guard.as_mut() else { return Input::EndOfFile };
    let Some(p) = c.ports.get_mut(port) else { return Input::EndOfFile };
    if p.state.input.is_empty() {
        return if p.state.host_closed { Input::EndOfFile } else { Input::Empty };
    }
    let n = buf.len().min(p.state.input.len());
    let (front, back) = p.state.input.as_slices();
    let from_front = n.min(front.len());
    buf[..from_front].copy_from_slice(&front[..from_front]);
    buf[from_front..n].copy_from_slice(&back[..n - from_front]);
    p.state.input.drain(..n);
    if p.state.input.len() < INPUT_LIMIT / 2 && !p.rx.parked.is_empty() {
        while let Some(b) = p.rx.parked.pop() {
            if !p.rx.post(b) {
                break;
            }
        }
        let (rx, _) = data_queues(port);
        c.notify_queue(rx);
    }
    Input::Data(n)
}

/// Whether a read of `port` would not block.
pub fn input_ready(port: usize) -> bool {
    let guard = CONSOLE.lock();
    guard.as_ref().and_then(|c| c.ports.get(port)).is_some_and(|p| !p.state.input.is_empty() || p.state.host_closed)
}

#[derive(Debug, PartialEq, Eq)]
pub enum WriteError {
    /// The host closed its side (a reader that went away): EPIPE.
    Closed,
    /// A signal came while waiting for the port: EINTR, nothing written.
    Interrupted,
}

/// Writes all of `bytes` to `port`, waiting until the device took them.
pub fn write(port: usize, bytes: &[u8]) -> Result<usize, WriteError> {
    if bytes.is_empty() {
        return Ok(0);
    }
    // One writer per port at a time: the used ring returns buffers in order
    // and each writer must pop its own.
    OUTPUT_WAITERS
        .wait_until(None, || {
            let mut guard = CONSOLE.lock();
            let s = &mut guard.as_mut()?.ports.get_mut(port)?.state;
            (!s.writing).then(|| s.writing = true)
        })
        .map_err(|_| WriteError::Interrupted)?;
    let result = transmit(port, bytes);
    if let Some(c) = CONSOLE.lock().as_mut() {
        c.ports[port].state.writing = false;
    }
    OUTPUT_WAITERS.wake_all();
    result
}

fn transmit(port: usize, bytes: &[u8]) -> Result<usize, WriteError> {
    let token = {
        let mut guard = CONSOLE.lock();
        let c = guard.as_mut().ok_or(WriteError::Closed)?;
        if c.ports[port].state.host_closed {
            return Err(WriteError::Closed);
        }
        // SAFETY: `bytes` stays borrowed until pop_used below returns it.
        let token = unsafe { c.ports[port].tx.add(&[bytes], &mut []) }.map_err(|_| WriteError::Closed)?;
        let (_, tx) = data_queues(port);
        c.notify_queue(tx);
        token
    };
    let mut popped = || {
        let mut guard = CONSOLE.lock();
        let q = &mut guard.as_mut()?.ports[port].tx;
        if !q.can_pop() {
            q.set_dev_notify(true); // the host is slow: wake us when it is done
            if !q.can_pop() {
                return None;
            }
        }
        q.set_dev_notify(false);
        // SAFETY: the buffer added under `token` above.
        unsafe { q.pop_used(token, &[bytes], &mut []) }.ok()
    };
    // The device owns the buffer until it is used: a signal cannot cut
    // this wait short, so an interrupted wait just waits again.
    loop {
        if OUTPUT_WAITERS.wait_until(None, &mut popped).is_ok() {
            return Ok(bytes.len());
        }
    }
}
