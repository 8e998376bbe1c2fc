"""HTTP and WebSocket routes; each module holds one `router`."""
