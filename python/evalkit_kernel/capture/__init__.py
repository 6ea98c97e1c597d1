"""Output capture: sys.stdout/sys.stderr objects, fd 1/2 pipes and the ordered stream router."""
