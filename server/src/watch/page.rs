//! Serving the page.
