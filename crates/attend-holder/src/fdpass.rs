//! Passing the PTY master between processes: one byte with an SCM_RIGHTS control message
//! (docs/decisions/0009-pane-holders.md#protocol).

use nix::sys::socket::{
    getsockopt, recvmsg, sendmsg, sockopt::PeerCredentials, ControlMessage, ControlMessageOwned,
    MsgFlags, UnixAddr,
};
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

/// Sends `F` with `fd` attached, or `N` without one.
pub fn send_fd(sock: &UnixStream, fd: Option<BorrowedFd<'_>>) -> io::Result<()> {
    let raw = fd.map(|f| [f.as_raw_fd()]);
    let cmsgs: Vec<ControlMessage<'_>> = raw
        .as_ref()
        .map(|r| ControlMessage::ScmRights(r))
        .into_iter()
        .collect();
    let byte: &[u8] = if fd.is_some() { b"F" } else { b"N" };
    sendmsg::<UnixAddr>(
        sock.as_raw_fd(),
        &[IoSlice::new(byte)],
        &cmsgs,
        MsgFlags::empty(),
        None,
    )
    .map_err(io::Error::from)?;
    Ok(())
}

/// Receives the byte sent by [`send_fd`] and the descriptor attached to it (close-on-exec).
/// Errors: end of stream (`UnexpectedEof`), a byte other than `F`/`N` (`InvalidData`).
pub fn recv_fd(sock: &UnixStream) -> io::Result<Option<OwnedFd>> {
    let mut byte = [0u8; 1];
    let mut space = nix::cmsg_space!([std::os::fd::RawFd; 1]);
    let mut iov = [IoSliceMut::new(&mut byte)];
    let msg = recvmsg::<UnixAddr>(
        sock.as_raw_fd(),
        &mut iov,
        Some(&mut space),
        MsgFlags::MSG_CMSG_CLOEXEC,
    )
    .map_err(io::Error::from)?;
    if msg.bytes == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let mut fd = None;
    for c in msg.cmsgs().map_err(io::Error::from)? {
        if let ControlMessageOwned::ScmRights(fds) = c {
            for raw in fds {
                // SAFETY: the kernel just installed this descriptor in this process for us.
                let owned = unsafe { OwnedFd::from_raw_fd(raw) };
                if fd.is_none() {
                    fd = Some(owned);
                }
            }
        }
    }
    match (byte[0], fd) {
        (b'F', Some(fd)) => Ok(Some(fd)),
        (b'N', None) => Ok(None),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the holder's first byte does not match its descriptor",
        )),
    }
}

/// The user id of the process at the other end of `sock` (SO_PEERCRED).
pub fn peer_uid(sock: &impl AsFd) -> io::Result<u32> {
    let cred = getsockopt(sock, PeerCredentials).map_err(io::Error::from)?;
    Ok(cred.uid())
}
