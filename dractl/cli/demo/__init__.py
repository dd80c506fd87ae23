"""`dractl demo`: the blog post's demos, on the fake cluster, kind or a cluster you name."""
