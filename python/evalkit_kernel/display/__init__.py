"""Rich output: display(), MIME formatting, the pretty printer, library types and matplotlib."""
