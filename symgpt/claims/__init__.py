"""Claims: the reference grammar, claims files, errata, and reading figures out of any document (check)."""
