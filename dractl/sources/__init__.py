"""Sources: where dractl reads API objects (a live cluster, a snapshot file, the fake cluster); all I/O is here."""
