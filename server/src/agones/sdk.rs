//! The Agones SDK sidecar's gRPC API: the client that tonic-build generates at build time from
//! the SDK's own proto files (`server/agones-proto/`, compiled by `server/build.rs` with protox:
//! no system `protoc`), and [`Sdk`], the calls the server makes, made as the official SDKs
//! make them.

use std::time::Duration;
use tokio::sync::mpsc;
use tonic::transport::{Channel, Endpoint};

/// The SDK's stable API (`agones.dev.sdk`), generated from `agones-proto/sdk/sdk.proto`.
#[allow(clippy::all, clippy::pedantic, dead_code, missing_docs)]
pub mod api {
    include!(concat!(env!("OUT_DIR"), "/agones-client/agones.dev.sdk.rs"));
}

/// The SDK's beta API (`agones.dev.sdk.beta`: Counters and Lists), generated from
/// `agones-proto/sdk/beta/beta.proto`.
#[allow(clippy::all, clippy::pedantic, dead_code, missing_docs)]
pub mod beta {
    include!(concat!(
        env!("OUT_DIR"),
        "/agones-client/agones.dev.sdk.beta.rs"
    ));
}

pub use api::GameServer;

/// How long [`Sdk::connect`] waits for the sidecar to answer: it may start after the game
/// server (the official SDKs wait as long).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How often [`Sdk::connect`] asks the sidecar meanwhile.
pub const CONNECT_RETRY: Duration = Duration::from_millis(100);

/// How many health pings may wait to be sent on the `Health` stream.
const HEALTH_QUEUE: usize = 10;

/// Why [`Sdk::connect`] found no sidecar.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The address could not be made into an endpoint.
    #[error("bad sidecar address: {0}")]
    Address(#[from] tonic::transport::Error),
    /// Nothing answered `GetGameServer` within [`CONNECT_TIMEOUT`].
    #[error("no answer within {CONNECT_TIMEOUT:?} (last: {last})")]
    NoAnswer {
        /// The last call's failure.
        last: String,
    },
}

/// A connection to the SDK sidecar, both APIs over one HTTP/2 channel. Clones share it.
#[derive(Clone)]
pub struct Sdk {
    client: api::sdk_client::SdkClient<Channel>,
    beta: beta::sdk_client::SdkClient<Channel>,
}

impl Sdk {
    /// Connects to the sidecar on `localhost:port` and waits (up to [`CONNECT_TIMEOUT`]) until it
    /// answers `GetGameServer`.
    pub async fn connect(port: u16) -> Result<Sdk, ConnectError> {
        let channel = Endpoint::from_shared(format!("http://localhost:{port}"))?
            .connect_timeout(CONNECT_TIMEOUT)
            .connect_lazy();
        let mut sdk = Sdk {
            client: api::sdk_client::SdkClient::new(channel.clone()),
            beta: beta::sdk_client::SdkClient::new(channel),
        };
        let mut last = String::from("no call answered");
        let answered = tokio::time::timeout(CONNECT_TIMEOUT, async {
            let mut every = tokio::time::interval(CONNECT_RETRY);
            loop {
                every.tick().await;
                match sdk.get_gameserver().await {
                    Ok(_) => return,
                    Err(e) => last = e.to_string(),
                }
            }
        })
        .await;
        match answered {
            Ok(()) => Ok(sdk),
            Err(_) => Err(ConnectError::NoAnswer { last }),
        }
    }

    /// `Ready`: the game server can take players (Agones may now allocate it).
    pub async fn ready(&mut self) -> Result<(), tonic::Status> {
        self.client.ready(api::Empty {}).await.map(drop)
    }

    /// `Shutdown`: Agones deletes the game server.
    pub async fn shutdown(&mut self) -> Result<(), tonic::Status> {
        self.client.shutdown(api::Empty {}).await.map(drop)
    }

    /// `SetAnnotation`: Agones stores it on the GameServer as `agones.dev/sdk-<key>`.
    pub async fn set_annotation(
        &mut self,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> Result<(), tonic::Status> {
        let kv = api::KeyValue {
            key: key.into(),
            value: value.into(),
        };
        self.client.set_annotation(kv).await.map(drop)
    }

    /// `GetGameServer`: the GameServer as it stands.
    pub async fn get_gameserver(&mut self) -> Result<GameServer, tonic::Status> {
        let gs = self.client.get_game_server(api::Empty {}).await?;
        Ok(gs.into_inner())
    }

    /// `WatchGameServer`: the GameServer at every change.
    pub async fn watch_gameserver(
        &mut self,
    ) -> Result<tonic::Streaming<GameServer>, tonic::Status> {
        let stream = self.client.watch_game_server(api::Empty {}).await?;
        Ok(stream.into_inner())
    }

    /// Opens the `Health` stream: each `()` sent on the returned sender is one ping. The
    /// stream ends when the sender is dropped; a send fails once it has closed.
    pub fn health_check(&self) -> mpsc::Sender<()> {
        let (pings, rx) = mpsc::channel(HEALTH_QUEUE);
        let mut client = self.client.clone();
        tokio::spawn(async move {
            let stream = tokio_stream::StreamExt::map(
                tokio_stream::wrappers::ReceiverStream::new(rx),
                |()| api::Empty {},
            );
            if let Err(e) = client.health(stream).await {
                tracing::warn!(error = %e, "Agones Health stream failed");
            }
        });
        pings
    }

    /// `AddListValue` (beta): adds `value` to the GameServer's list `list`.
    pub async fn add_list_value(&mut self, list: &str, value: &str) -> Result<(), tonic::Status> {
        let request = beta::AddListValueRequest {
            name: list.to_string(),
            value: value.to_string(),
        };
        self.beta.add_list_value(request).await.map(drop)
    }

    /// `RemoveListValue` (beta): removes `value` from the GameServer's list `list`.
    pub async fn remove_list_value(
        &mut self,
        list: &str,
        value: &str,
    ) -> Result<(), tonic::Status> {
        let request = beta::RemoveListValueRequest {
            name: list.to_string(),
            value: value.to_string(),
        };
        self.beta.remove_list_value(request).await.map(drop)
    }
}
