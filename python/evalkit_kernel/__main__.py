"""`python -m evalkit_kernel`: run the runner from an installed or checked-out package."""

from .core.main import main

main()
