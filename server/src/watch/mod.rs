//! The live match in a browser: the page (`/watch/<match>` on the admin API's HTTP side, its
//! files embedded in the binary: `page/watch.html`, `page/watch.js`), the frames it is sent
//! over WebTransport (`frame.rs`: a compact view of each turn the server derives from its own
//! sim, delayed like every spectator), and serving the page (`page.rs`). The browser runs no
//! sim; which turns it may see is the lockstep core's rule (`lockstep/watch.rs`), the WebTransport
//! session only moves the frames (`driver/watcher.rs`).

pub mod frame;
pub mod page;
