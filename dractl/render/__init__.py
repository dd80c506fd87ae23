"""Printers chosen by -o: the rows, documents and text of each command's answer."""
