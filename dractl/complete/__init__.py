"""Shell completion: the TAB fast path (no Typer), its generated table and the shell scripts."""
