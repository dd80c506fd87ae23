"""The commands of dractl, one module per command (or per family of listings)."""
