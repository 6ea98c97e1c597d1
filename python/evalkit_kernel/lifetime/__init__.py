"""The kernel's lifetime: a remote kernel's own guard, forked children, orphans, limits and usage."""
