"""The names the rewritten cells use for the magic and shell runtimes in the user's namespace."""

MAGIC_NAME = "__evalkit_magic__"
SHELL_NAME = "__evalkit_shell__"
