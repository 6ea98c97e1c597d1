"""The core loop: protocol, requests, cell execution, shared state, hooks and the host bridge."""
