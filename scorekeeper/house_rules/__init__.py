"""House rules: the family's own variants, written in an editor, printed, shared as files."""
