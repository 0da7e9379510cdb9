//! The server's UDP socket. Hundreds of clients connecting at once each send a padded Initial
//! packet of 1,200 bytes or more; with the kernel's default receive buffer (about 208 KiB on
//! Linux) such a burst overflows it, the packets are dropped, and those handshakes wait a
//! retransmission timeout (1 s, then 2 s, 4 s…) each time. So the socket asks for larger
//! buffers.

use anyhow::{Context, Result};
use std::net::SocketAddr;

/// The receive and send buffer sizes the server asks for. The kernel caps them at
/// `net.core.rmem_max` / `net.core.wmem_max`; a smaller grant is logged at `warn`.
pub const UDP_BUFFER_BYTES: usize = 4 << 20;

/// A QUIC server endpoint on `listen` with [`UDP_BUFFER_BYTES`] socket buffers.
pub fn server_endpoint(
    listen: SocketAddr,
    server_config: quinn::ServerConfig,
) -> Result<quinn::Endpoint> {
    let socket = std::net::UdpSocket::bind(listen)?;
    let state = quinn::udp::UdpSocketState::new((&socket).into())?;
    // Failing to grow a buffer is not fatal: the server works, bursts just lose packets.
    let _ = state.set_recv_buffer_size((&socket).into(), UDP_BUFFER_BYTES);
    let _ = state.set_send_buffer_size((&socket).into(), UDP_BUFFER_BYTES);
    let recv = state.recv_buffer_size((&socket).into()).unwrap_or(0);
    let send = state.send_buffer_size((&socket).into()).unwrap_or(0);
    // Linux reports twice what it grants (the bookkeeping overhead).
    if recv < UDP_BUFFER_BYTES || send < UDP_BUFFER_BYTES {
        tracing::warn!(
            recv,
            send,
            wanted = UDP_BUFFER_BYTES,
            "smaller UDP buffers than asked (raise net.core.rmem_max / wmem_max)"
        );
    } else {
        tracing::debug!(recv, send, "UDP buffers");
    }
    let runtime = quinn::default_runtime().context("no async runtime for QUIC")?;
    quinn::Endpoint::new(
        quinn::EndpointConfig::default(),
        Some(server_config),
        socket,
        runtime,
    )
    .context("starting the QUIC endpoint")
}
