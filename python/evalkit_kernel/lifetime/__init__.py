"""The kernel's lifetime: the guard that ends it with the host, forked children, orphans, limits and usage."""
