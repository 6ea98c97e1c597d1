"""The prelude: helpers for agents (read, write, completion, agent, parallel, tool, ...)."""
