"""The Kubernetes CEL function library as celpy functions (the back-end's runtime half).

Every function here is registered in celpy's flat function table (see
``backend.py``); celpy calls ``x.f(a)`` as ``f(x, a)`` and passes celpy values
(``celpy.celtypes.IntType``, ``StringType``, ...). Besides the libraries
(apiserver pkg/cel/library quantity/semver/ip/cidr/lists/regex, cel-go ext.Strings v2,
ext.Sets, ext.Lists, optional types, the DRA ``includes()``), the package holds
dractl's versions of the standard operators (``_==_``, ``_<_``, ``_+_``, ...),
which replace celpy's base functions in the same table so that evaluation
follows cel-go (heterogeneous equality, cross-type numeric comparison, int64
overflow, error texts), and the helper functions the lowering uses for optional
chaining, comprehensions and DRA map semantics.

Errors are CEL error *values*: a function returns a ``CELEvalError`` (celpy then
propagates it like any other error value). Internally they are raised as
:class:`EvalError` and turned into values by :func:`cel_function`.

``values`` (values, errors, equality, ordering), ``gostrings`` (Go's regexp errors and strings functions),
``operators``, ``functions`` and ``network`` (the libraries), ``lowering`` (what the lowered source calls),
``runtime`` (one evaluation's state and cost) and ``registry`` (the table celpy evaluates with).
"""
