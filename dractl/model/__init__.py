"""The immutable model of the API objects dractl reads, and the views derived from it."""
